"""A fuzz harness for every command that reads a file a user names (issue #14): seeded case
generators and a runner that classifies what the real CLI does with each case.

What is generated (each case carries its expectation, see :data:`ACCEPT`, :data:`ANY`, :data:`REFUSE`):

* score records of the three games (``companion score --game G``): valid ones written from the
  engines' own random games (``record_from_state`` for Sushi Roll and Sushi Express, the Sushi Go!
  history as in tests/test_sushi_go_record_properties.py), then mutated three ways: structural JSON
  mutations (keys dropped or repeated, wrong types, 5000-digit numbers, NaN, deep nesting, player
  names with lone surrogates, control characters, 100 000 characters, blanks, case twins), byte
  mutations of the text (bit flips, cuts, insertions, bytes that are not UTF-8, UTF-16/32), and
  records that are well-formed but impossible (one card, die or token more than the box or the
  history allows, a seat that does not exist), which must be refused;
* images for ``companion classify`` and ``companion read cards``: small valid frames in every
  layout OpenCV writes (grey, 16-bit, alpha, palette, 1-bit, BMP, TIFF, WebP, PNM), then cut,
  flipped, re-labelled, 30000 × 30000 px of zeros in 0.9 MB, headers declaring 65500² px over a
  few bytes, 1 × 100000 strips, special files;
* deck files for ``--deck`` (the arrays of :mod:`companion.vision.deck`): fields dropped, of the
  wrong dtype, shape or range, NaN, labels as numbers or empty, string version or threshold, a
  fractional patch size, a pickle that would write a file when loaded, a 2 GiB zero array hidden
  in 2 MB, broken zips;
* replay fixtures (``companion replay``): game.json mutated as above, the file given instead of the
  folder, symbolic-link loops, a NUL in a name, ``--screens`` at an existing file;
* journals (``companion games``, ``companion export``): SQLite bytes flipped or cut, rows rewritten
  with SQL into shapes the program never writes;
* panel scripts (``companion play --panel script:FILE``): entries of the wrong type, order or name,
  and the byte mutations. (Serial frames: bench/fuzz_link.py.)

How a case is run (:class:`Runner`): ``inline`` calls ``companion.cli.main(argv)`` in this process
with stdin, stdout and stderr captured (fast; for cases that cannot take the process down),
``worker`` does the same in a long-lived child process that is killed and replaced when a case hangs
or crashes it, and ``process`` runs the real CLI in a fresh interpreter
(``python -c "from companion.cli import main; raise SystemExit(main())" ...``) under a wall-time
limit, reading the child's own peak resident memory from ``os.wait4``. The verdicts
(:func:`verdict`): accepted, named error, traceback, hang, crash (a signal), over-memory (peak
resident set over :data:`MEM_LIMIT_MB`), wrongly accepted (a must-refuse case that ran), wrongly
refused (a valid input refused), unnamed (a failure exit with nothing on stderr).

Everything is deterministic for a seed: cases come from ``random.Random(f"{seed}/{command}/{i}")``
and the engines' seeded games. No hypothesis here (tests may wrap these generators in it).
"""

from __future__ import annotations

import base64
import copy
import functools
import io
import json
import os
import random
import re
import resource
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
DECK = FIXTURES / "sim-deck.npz"
REPLAY_SOURCE = FIXTURES / "sushi-go-4p"
#: The command a process-level case runs, before its own arguments.
CLI = [sys.executable, "-c", "from companion.cli import main; raise SystemExit(main())"]
#: Big generated inputs (the 0.9 MB 30000² PNG, the 2 MB deck hiding 2 GiB) are built once here.
CACHE = Path(os.environ.get("COMPANION_FUZZ_CACHE", Path(tempfile.gettempdir()) / "companion-fuzz-cache"))

#: Peak resident memory (MB) any single input may cost (issue #14, Done when).
MEM_LIMIT_MB = 512
#: Wall time (s) after which a case is a hang.
TIMEOUT_S = 20.0
#: Address-space limit (bytes) put on every child: far above the 512 MB the verdict allows, only so a
#: runaway case cannot take the shared machine's memory (a child that hits it fails; it is reported).
AS_LIMIT = 8 << 30

# --- expectations and verdicts -------------------------------------------------------------------
#: A valid input: it must be accepted (exit in ``ok_codes``).
ACCEPT = "must accept"
#: Anything named will do: accepted, or refused with a message (never a traceback, hang, crash).
ANY = "any named outcome"
#: Bad by a documented rule: it must be refused (exit in ``refuse_codes``).
REFUSE = "must refuse"

ACCEPTED = "accepted"
NAMED = "named error"
TRACEBACK = "traceback"
HANG = "hang"
CRASH = "crash"
OVER_MEMORY = "over-memory"
WRONGLY_ACCEPTED = "wrongly accepted"
WRONGLY_REFUSED = "wrongly refused"
UNNAMED = "unnamed failure"
#: Every verdict, in table order; the first two are the good ones.
VERDICTS = (ACCEPTED, NAMED, TRACEBACK, HANG, CRASH, OVER_MEMORY, WRONGLY_ACCEPTED, WRONGLY_REFUSED, UNNAMED)
GOOD = frozenset({ACCEPTED, NAMED})

#: The table's rows, in order.
COMMANDS = ("score sushi-go", "score sushi-roll", "score sushi-express", "classify", "read cards", "--deck",
            "replay", "games/export", "panel script")


@dataclass
class Case:
    """One input and the command line that reads it.

    ``argv`` is what follows ``companion``; ``{d}`` in an argument stands for the case's folder.
    ``files`` maps a path inside the folder to its bytes, or to a :class:`Path` to copy (big cached
    inputs). ``setup(folder)`` makes what bytes cannot (FIFOs, symbolic links, folders).
    ``check(folder, stdout)`` returns a problem or None after a run (e.g. the pickle wrote no file).
    ``where`` is "any"; "isolated" for cases that could take the runner's own process down or
    block it (giant inputs, devices, FIFOs): a worker or a process, never inline; "process" for
    cases only a real process can be given (argv bytes that are not UTF-8, stdin) or measured
    fairly (a 48 MP photo's peak memory); "inline" for argv no process can get (a NUL).
    """

    command: str
    op: str
    index: int
    argv: list
    expect: str
    why: str = ""
    files: dict = field(default_factory=dict)
    setup: Callable[[Path], None] | None = None
    stdin: bytes | Path | None = None
    check: Callable[[Path, str], str | None] | None = None
    where: str = "any"
    ok_codes: tuple = (0,)
    refuse_codes: tuple = (2,)

    @property
    def ident(self) -> str:
        """A stable name: command, operation, index (``score-sushi-roll/name-blank/3``)."""
        return f"{self.command.replace(' ', '-').lstrip('-')}/{self.op}/{self.index}"


@dataclass
class Outcome:
    """What one run did: exit code (negative: killed by that signal), captured output (trimmed),
    wall time (s), peak resident memory (MB; None when it could not be measured) and how it ran."""

    code: int
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float | None
    timed_out: bool = False
    mode: str = "inline"
    problem: str | None = None  # a failed ``Case.check``

    def where_it_breaks(self) -> str:
        """For a traceback: the innermost companion frame and the exception's last line."""
        return traceback_site(self.stderr)


def traceback_site(stderr: str) -> str:
    """Where a traceback (or a fatal signal's faulthandler dump) in ``stderr`` points: the
    innermost companion frame and the last line (``companion/x.py:123 in f: ValueError: ...``);
    '' when there is neither."""
    if "Fatal Python error" in stderr:
        dump = stderr[stderr.index("Fatal Python error"):]
        frames = re.findall(r'File "([^"]*?)", line (\d+),? in (\S+)', dump)
        ours = [fr for fr in frames if "/companion/" in fr[0]]
        f, n, fn = (ours or frames or [("?", "?", "?")])[0]  # faulthandler lists the most recent first
        last = dump.splitlines()[0].strip()
    elif "Traceback (most recent call last)" in stderr:
        frames = re.findall(r'File "([^"]*?)", line (\d+), in (\S+)', stderr)
        ours = [fr for fr in frames if "/companion/" in fr[0]]
        f, n, fn = (ours or frames or [("?", "?", "?")])[-1]
        tail = [ln for ln in stderr.strip().splitlines() if ln.strip()]
        last = tail[-1].strip() if tail else ""
    else:
        return ""
    short = "companion/" + f.split("/companion/", 1)[-1] if "/companion/" in f else f
    return f"{short}:{n} in {fn}: {last[:160]}"


def verdict(case: Case, out: Outcome) -> str:
    """The verdict of ``out`` for ``case``: the worst thing that happened, in the order crash,
    hang, over-memory, traceback, wrongly accepted, wrongly refused, unnamed; else accepted or named."""
    if out.timed_out:
        return HANG
    if out.code < 0:
        return CRASH
    if out.peak_mb is not None and out.peak_mb > MEM_LIMIT_MB:
        return OVER_MEMORY
    if "Traceback (most recent call last)" in out.stderr:
        return TRACEBACK
    if out.problem is not None:
        return WRONGLY_ACCEPTED if case.expect == REFUSE else WRONGLY_REFUSED
    if case.expect == REFUSE and out.code not in case.refuse_codes:
        return WRONGLY_ACCEPTED if out.code in case.ok_codes else (NAMED if out.stderr.strip() else UNNAMED)
    if case.expect == ACCEPT and out.code not in case.ok_codes:
        return WRONGLY_REFUSED
    if out.code == 0 or (case.expect == ACCEPT and out.code in case.ok_codes):
        return ACCEPTED  # (a replay or play that stops with exit 1 accepted its input and says why it stopped)
    return NAMED if out.stderr.strip() else UNNAMED


# --- writing JSON the json module will not write -------------------------------------------------
class Raw:
    """A JSON token written as it is (``NaN``, a 5000-digit number, 100 000 nested brackets)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:20]!r}...)"


class Pairs:
    """A JSON object written from (key, value) pairs, so a key can appear twice."""

    def __init__(self, pairs) -> None:
        self.pairs = list(pairs)


def _has_surrogate(s: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in s)


def to_json(value: Any, indent: int | None = None, ascii_only: bool = False, _level: int = 0) -> str:
    """JSON text for ``value`` (dicts, lists, str, int, float, bool, None, :class:`Raw`,
    :class:`Pairs`). A string holding a lone surrogate is written escaped (``"\\ud800"``), as a
    hostile file would hold it."""
    nl = "" if indent is None else "\n" + " " * (indent * (_level + 1))
    end = "" if indent is None else "\n" + " " * (indent * _level)
    sep = ", " if indent is None else ","
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=ascii_only or _has_surrogate(value))
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value) if abs(value) < 10**4000 else Raw(repr(value)).text
    if isinstance(value, float):
        return json.dumps(value)
    if isinstance(value, (dict, Pairs)):
        items = value.pairs if isinstance(value, Pairs) else list(value.items())
        if not items:
            return "{}"
        body = sep.join(nl + to_json(k, None, ascii_only) + ": " + to_json(v, indent, ascii_only, _level + 1)
                        for k, v in items)
        return "{" + body + end + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        return "[" + sep.join(nl + to_json(v, indent, ascii_only, _level + 1) for v in value) + end + "]"
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def nodes(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, node) of a JSON tree, the root included (path ``()``)."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from nodes(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from nodes(v, path + (i,))


def set_at(tree: Any, path: tuple, new: Any) -> Any:
    """``tree`` with the node at ``path`` replaced by ``new`` (in place; the root is returned new)."""
    if not path:
        return new
    parent = tree
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = new
    return tree


def huge_int(rng: random.Random, digits: int = 5000) -> Raw:
    """A whole number of ``digits`` digits (Python refuses to convert more than 4300 by default)."""
    sign = "-" if rng.random() < 0.2 else ""
    return Raw(sign + str(rng.randint(1, 9)) + "".join(str(rng.randrange(10)) for _ in range(digits - 1)))


def deep(value: Any, depth: int, rng: random.Random) -> Raw:
    """``value`` inside ``depth`` levels of lists or objects."""
    inner = to_json(value)
    if rng.random() < 0.5:
        return Raw("[" * depth + inner + "]" * depth)
    return Raw('{"a": ' * depth + inner + "}" * depth)


def other_type(value: Any, rng: random.Random) -> Any:
    """A JSON value of another type than ``value``."""
    pool = [None, True, False, 0, 1, -1, 0.5, 3.0, "", "x", "tempura", [], {}, [1, 2], {"a": 1}, [[]], " "]
    kind = type(value)
    choices = [v for v in pool if type(v) is not kind]
    return copy.deepcopy(rng.choice(choices))


# --- byte-level mutations (any JSON text) --------------------------------------------------------
BAD_UTF8 = (b"\xff", b"\xfe", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf8\x88\x80\x80\x80",
            b"\x80", b"\xf4\x90\x80\x80")


def byte_mutation(text: str, op: str, rng: random.Random) -> tuple[bytes, str, str]:
    """(bytes, expectation, why) for the byte-level operation ``op`` on a JSON ``text``."""
    data = bytearray(text.encode("utf-8"))
    n = len(data)
    if op == "bytes-bit-flip":
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(n)
            data[i] ^= 1 << rng.randrange(8)
        return bytes(data), ANY, ""
    if op == "bytes-truncate":
        return bytes(data[: rng.randrange(n)]), ANY, ""
    if op == "bytes-insert":
        i = rng.randrange(n + 1)
        extra = rng.choice([rng.randbytes(rng.randint(1, 16)), rng.choice([b"{", b"}", b"[", b"]", b'"', b",", b":",
                                                                          b"\\", b"0", b"-", b"e9", b"null"])])
        return bytes(data[:i] + extra + data[i:]), ANY, ""
    if op == "bytes-delete":
        i = rng.randrange(n)
        return bytes(data[:i] + data[i + rng.randint(1, 32):]), ANY, ""
    if op == "bytes-not-utf8":
        i = rng.randrange(n + 1)
        return bytes(data[:i] + rng.choice(BAD_UTF8) + data[i:]), REFUSE, "not UTF-8 (RFC 8259 §8.1)"
    if op == "bytes-utf16":
        enc = rng.choice(["utf-16", "utf-16-le", "utf-16-be"])
        return text.encode(enc, "surrogatepass"), REFUSE, f"{enc}, not UTF-8"
    if op == "bytes-utf32":
        return text.encode(rng.choice(["utf-32", "utf-32-le"]), "surrogatepass"), REFUSE, "UTF-32, not UTF-8"
    if op == "bytes-utf8-bom":
        return b"\xef\xbb\xbf" + bytes(data), ANY, ""
    if op == "bytes-nul":
        i = rng.randrange(n + 1)
        return bytes(data[:i] + b"\x00" + data[i:]), REFUSE, "a NUL byte is not JSON"
    if op == "bytes-empty":
        return rng.choice([b"", b" ", b"\n\n", b"\t \r\n"]), REFUSE, "no JSON value"
    if op == "bytes-doubled":
        return bytes(data + b"\n" + data), REFUSE, "two JSON values"
    if op == "bytes-padded":
        pad = rng.choice([2_000_000, 5_000_000])
        return b" " * pad + bytes(data), ANY, ""
    if op == "bytes-raw-control":
        # a raw control character inside a string (RFC 8259 §7: must be escaped)
        quotes = [i for i, b in enumerate(data) if b == 0x22]
        i = rng.choice(quotes) + 1 if quotes else 0
        return bytes(data[:i] + bytes([rng.choice([1, 7, 8, 0x1b, 0x1f])]) + data[i:]), REFUSE, "raw control character"
    raise ValueError(op)


BYTE_OPS = ("bytes-bit-flip", "bytes-truncate", "bytes-insert", "bytes-delete", "bytes-not-utf8", "bytes-utf16",
            "bytes-utf32", "bytes-utf8-bom", "bytes-nul", "bytes-empty", "bytes-doubled", "bytes-padded",
            "bytes-raw-control")


# --- player names --------------------------------------------------------------------------------
#: (op, expectation): names a player is renamed to everywhere in a record.
NAME_OPS = {
    "name-lone-surrogate": REFUSE,
    "name-control": REFUSE,
    "name-blank": REFUSE,
    "name-huge": REFUSE,
    "name-case-twin": REFUSE,
    "name-duplicate": REFUSE,
    "name-format-chars": ANY,
    "name-padded": ANY,
    "name-unicode": ANY,
    "name-long": ANY,
}


def new_name(op: str, names: list[str], seat: int, rng: random.Random) -> str:
    """The name ``op`` gives seat ``seat`` (whose neighbours are ``names``)."""
    old = names[seat]
    other = names[(seat + 1) % len(names)]
    if op == "name-lone-surrogate":
        s = rng.choice(["\ud800", "\udfff", "\udc80"])
        return rng.choice([s, old + s, s + old])
    if op == "name-control":
        c = rng.choice(["\x00", "\x07", "\n", "\t", "\r", "\x1b[31m", "\x7f", "\x85", "\x08"])
        return rng.choice([old + c, c + old, old[:1] + c + old[1:]])
    if op == "name-blank":
        return rng.choice(["", " ", "   ", "\t", "\u3000", "\u00a0"])
    if op == "name-huge":
        return rng.choice(["A", "é", "李"]) * 100_000
    if op == "name-case-twin":
        twin = other.swapcase() if other.swapcase() != other else other.upper() + "a".upper()
        return twin if twin != other else other.lower()
    if op == "name-duplicate":
        return other
    if op == "name-format-chars":
        return old[:1] + rng.choice(["\u200b", "\u202e", "\ufeff", "\u2066", "\u00ad"]) + old[1:]
    if op == "name-padded":
        return rng.choice([" ", "  "]) + old + rng.choice(["", " "])
    if op == "name-unicode":
        return rng.choice(["Zoë", "李雷", "Łukasz", "🍣 Sam", "Ωmega", "Ana\u0301", "ﬀ"])
    if op == "name-long":
        return "N" * rng.choice([40, 64, 200, 1000])
    raise ValueError(op)


# --- score records -------------------------------------------------------------------------------
SCORE_GAMES = ("sushi-go", "sushi-roll", "sushi-express")
NAME_POOL = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Zoë", "Mika", "Sam", "Lee", "Raj", "Uma")


def _sushi_go_record(seed: int) -> dict:
    """The record of a random legal Sushi Go! game (the engine's own history, one entry per turn,
    a chopsticks pair as a list), as tests/test_sushi_go_record_properties.py writes it."""
    from companion.rules.sushi_go import apply, legal_plays, new_game
    from companion.rules.sushi_go.state import SushiGoOptions

    rng = random.Random(seed)
    dummy = rng.random() < 0.15
    names = rng.sample(NAME_POOL, 2 if dummy else rng.randint(2, 5))
    options = SushiGoOptions(same_turn_wasabi_triples=rng.random() < 0.3, pass_both_ways=rng.random() < 0.3,
                             dummy=dummy, dummy_uses_chopsticks=dummy and rng.random() < 0.5,
                             first_dummy_controller=rng.randrange(2) if dummy else 0)
    state = new_game(names, random.Random(seed), options)
    rounds: list[dict] = []
    while not state.is_over:
        if state.turn == 1 and state.pending == (None,) * state.seats:
            rounds.append({name: [] for name in state.players})
        play = rng.choice(legal_plays(state, state.waiting_for()[0]))
        entry = [c.value for c in play.cards] if len(play.cards) == 2 else play.cards[0].value
        rounds[-1][state.players[play.player]].append(entry)
        state = apply(state, play)
    return {"players": names, "rounds": rounds, "options": options.to_dict()}


def _sushi_roll_record(seed: int) -> dict:
    from companion.rules.sushi_roll import random_game
    from companion.rules.sushi_roll.record import record_from_state

    rng = random.Random(seed)
    return record_from_state(random_game(seed, rng.sample(NAME_POOL, rng.randint(2, 5))))


def _sushi_express_record(seed: int) -> dict:
    from companion.rules.sushi_express import random_game
    from companion.rules.sushi_express.record import record_from_state
    from companion.rules.sushi_express.state import SushiExpressOptions

    rng = random.Random(seed)
    n = rng.randint(3, 6)
    options = SushiExpressOptions(equal_tips_penalty=rng.random() < 0.3, first_player=rng.randrange(n))
    return record_from_state(random_game(seed, rng.sample(NAME_POOL, n), options))


@functools.lru_cache(maxsize=None)
def base_records(game: str, count: int = 12, seed: int = 14) -> tuple[str, ...]:
    """``count`` valid records of ``game`` as JSON text, each from a seeded random engine game."""
    make = {"sushi-go": _sushi_go_record, "sushi-roll": _sushi_roll_record, "sushi-express": _sushi_express_record}[game]
    return tuple(json.dumps(make(seed * 1000 + i), ensure_ascii=False) for i in range(count))


def rename_player(record: dict, game: str, seat: int, new: str) -> dict:
    """``record`` with player ``seat`` called ``new`` everywhere (players, round keys, tokens/cards)."""
    old = record["players"][seat]
    record["players"][seat] = new

    def rekey(obj: dict) -> dict:
        return {(new if k == old else k): v for k, v in obj.items()}

    if game in ("sushi-go", "sushi-roll"):
        record["rounds"] = [rekey(r) for r in record["rounds"]]
    if game == "sushi-roll":
        record["tokens"] = rekey(record["tokens"])
    if game == "sushi-express":
        record["cards"] = rekey(record["cards"])
    return record


def _impossible_sushi_go(rec: dict, op: str, rng: random.Random) -> tuple[dict, str] | None:
    from companion.rules.sushi_go.cards import DECK_COUNTS

    rounds = rec["rounds"]
    seats = list(rounds[0])
    if op == "imp-box":
        counts: dict[str, int] = {}
        singles = []
        for r, rnd in enumerate(rounds):
            for name, turns in rnd.items():
                for t, entry in enumerate(turns):
                    for c in ([entry] if isinstance(entry, str) else entry):
                        counts[c] = counts.get(c, 0) + 1
                    if isinstance(entry, str):
                        singles.append((r, name, t, entry))
        # never chopsticks, either way: a chopsticks goes back into the hand and may be taken again
        # (USING CHOPSTICKS), so the record's count of them is not a count of cards
        kinds = [k.value for k in DECK_COUNTS if k.value != "chopsticks"]
        rng.shuffle(kinds)
        for kind in kinds:
            need = DECK_COUNTS[next(k for k in DECK_COUNTS if k.value == kind)] + 1 - counts.get(kind, 0)
            others = [s for s in singles if s[3] not in (kind, "chopsticks")]
            if 0 < need <= len(others):
                for r, name, t, _ in rng.sample(others, need):
                    rounds[r][name][t] = kind
                return rec, f"{need} more {kind} than there are: one over the box (CONTENTS)"
        return None
    if op == "imp-extra-turn":
        r, name = rng.randrange(len(rounds)), rng.choice(seats)
        rounds[r][name].append(rng.choice(["tempura", "sashimi", "pudding"]))
        return rec, "a turn more than cards dealt (STARTING A ROUND)"
    if op == "imp-missing-turn":
        r, name = rng.randrange(len(rounds)), rng.choice(seats)
        rounds[r][name].pop()
        return rec, "a turn fewer than cards dealt"
    if op == "imp-extra-round":
        rounds.append(copy.deepcopy(rng.choice(rounds)))
        return rec, "a fourth round (3 rounds)"
    if op == "imp-unknown-seat":
        r = rng.randrange(len(rounds))
        rounds[r]["Zed"] = list(rounds[r][rng.choice(seats)])
        return rec, "a seat that is not in players"
    if op == "imp-pair-without-chopsticks":
        r, name = rng.randrange(len(rounds)), rng.choice(seats)
        first = rounds[r][name][0]
        if not isinstance(first, str):
            return None
        rounds[r][name][0] = [first, "tempura"]
        return rec, "two cards on the first turn of a round: no chopsticks can be in front yet (USING CHOPSTICKS)"
    if op == "imp-unknown-card":
        r, name = rng.randrange(len(rounds)), rng.choice(seats)
        rounds[r][name][rng.randrange(len(rounds[r][name]))] = rng.choice(["pizza", "Tempura", "maki_4", "maki"])
        return rec, "no such card"
    raise ValueError(op)


def _impossible_sushi_roll(rec: dict, op: str, rng: random.Random) -> tuple[dict, str] | None:
    from companion.rules.sushi_roll.dice import DICE_COUNTS, START_TOKENS, load_dice_faces, parse_face

    rounds, names = rec["rounds"], rec["players"]
    if op == "imp-tokens":
        name = rng.choice(names)
        kind = rng.choice(["menu", "chopsticks"])
        taken = sum(parse_face(f).count for rnd in rounds for f in rnd[name] if f.split("*")[0] == kind)
        rec["tokens"][name][kind] = getattr(START_TOKENS, kind) + taken + rng.choice([1, 1, 2, 10])
        return rec, f"{name} has more {kind} tokens than the start plus the icons taken"
    if op == "imp-die-over-box":
        dice = load_dice_faces()
        r = rng.randrange(len(rounds))
        entries = [(name, i) for name in names for i in range(len(rounds[r][name]))]
        kinds = list(DICE_COUNTS)
        rng.shuffle(kinds)
        for kind in kinds:
            faces = sorted(set(map(str, dice.of(kind))))
            have = [(n, i) for n, i in entries if parse_face(rounds[r][n][i]).kind == kind]
            others = [e for e in entries if e not in have]
            need = DICE_COUNTS[kind] + 1 - len(have)
            if 0 < need <= len(others):
                for n, i in rng.sample(others, need):
                    rounds[r][n][i] = rng.choice(faces)
                return rec, f"{DICE_COUNTS[kind] + 1} {kind} dice in one round: the game has {DICE_COUNTS[kind]}"
        return None
    if op == "imp-extra-die":
        r, name = rng.randrange(len(rounds)), rng.choice(names)
        rounds[r][name].append(rng.choice(["maki", "tempura", "sashimi"]))
        return rec, "a die more than a belt holds"
    if op == "imp-missing-die":
        r, name = rng.randrange(len(rounds)), rng.choice(names)
        rounds[r][name].pop()
        return rec, "a die fewer than a belt holds"
    if op == "imp-no-such-face":
        r, name = rng.randrange(len(rounds)), rng.choice(names)
        rounds[r][name][rng.randrange(len(rounds[r][name]))] = rng.choice(["maki*9", "pizza", "tempura*0", "maki*-1",
                                                                         "menu*7", "maki*", "*2"])
        return rec, "a face no die shows"
    if op == "imp-tokens-unknown-seat":
        rec["tokens"]["Zed"] = {"menu": 1}
        return rec, "tokens of a seat that is not in players"
    if op == "imp-extra-round":
        rounds.append(copy.deepcopy(rng.choice(rounds)))
        return rec, "a fourth round"
    raise ValueError(op)


def _impossible_sushi_express(rec: dict, op: str, rng: random.Random) -> tuple[dict, str] | None:
    from companion.rules.sushi_express.state import ACTION_COUNTS, COLOURS, CUSTOMER_COUNTS, ActionCard, Customer

    names, cards = rec["players"], rec["cards"]
    name = rng.choice(names)
    if op == "imp-colour-over-box":
        colour = rng.choice(COLOURS)
        cards[name]["customers"][colour.value] = CUSTOMER_COUNTS[colour] + rng.choice([1, 1, 5])
        return rec, f"more {colour.value} customers than the box holds"
    if op == "imp-tips-over-box":
        cards[name]["tips"] = CUSTOMER_COUNTS[Customer.TIP] + 1
        return rec, "more tip customers than the box holds"
    if op == "imp-tip-actions-over-box":
        cards[name]["tip_actions"] = ACTION_COUNTS[ActionCard.TIP] + 1
        return rec, "more tip action cards than the box holds"
    if op == "imp-actions-over-box":
        cards[name]["actions_left"] = sum(n for c, n in ACTION_COUNTS.items() if c is not ActionCard.TIP) + 1
        return rec, "more action cards than the box holds"
    if op == "imp-first-player":
        rec.setdefault("options", {})["first_player"] = rng.choice([len(names), len(names) + 1, 99, -1])
        return rec, "first_player is not a seat"
    if op == "imp-unknown-seat":
        cards["Zed"] = copy.deepcopy(cards[name])
        return rec, "cards of a seat that is not in players"
    if op == "imp-unknown-colour":
        # ("Light Blue", " rose" are spellings the record takes: parse_customer)
        cards[name]["customers"][rng.choice(["purple", "tip", "blue", "pink", ""])] = 1
        return rec, "no such customer colour (or tips given as a colour)"
    if op == "imp-seventh-player":
        extra = [n for n in ("Gus", "Hal", "Ivy", "Jo", "Kim", "Lu", "Max") if n not in names][: 7 - len(names)]
        for n in extra:
            names.append(n)
            cards[n] = {"customers": {}, "tips": 0, "tip_actions": 0, "actions_left": 0}
        return rec, "Sushi Express is for 3 to 6 players"
    raise ValueError(op)


IMPOSSIBLE_OPS = {
    "sushi-go": ("imp-box", "imp-extra-turn", "imp-missing-turn", "imp-extra-round", "imp-unknown-seat",
                 "imp-pair-without-chopsticks", "imp-unknown-card"),
    "sushi-roll": ("imp-tokens", "imp-die-over-box", "imp-extra-die", "imp-missing-die", "imp-no-such-face",
                   "imp-tokens-unknown-seat", "imp-extra-round"),
    "sushi-express": ("imp-colour-over-box", "imp-tips-over-box", "imp-tip-actions-over-box", "imp-actions-over-box",
                      "imp-first-player", "imp-unknown-seat", "imp-unknown-colour", "imp-seventh-player"),
}
_IMPOSSIBLE = {"sushi-go": _impossible_sushi_go, "sushi-roll": _impossible_sushi_roll,
               "sushi-express": _impossible_sushi_express}

#: Structural operations on any JSON document (records, game.json, panel scripts).
STRUCT_OPS = ("struct-drop-key", "struct-wrong-type", "struct-huge-number", "struct-huge-float", "struct-nan",
              "struct-deep-value", "struct-deep-document", "struct-dup-key", "struct-not-object")
#: Structural operations on counts (ints) of a record.
COUNT_OPS = ("count-bool", "count-string", "count-negative", "count-fraction", "count-float", "count-huge")
VALID_OPS = ("valid", "valid-reformatted")
SPECIAL_OPS = ("special-dev-zero", "special-dev-urandom", "special-fifo", "special-dir", "special-missing",
               "special-symlink-loop")


def struct_mutation(doc: Any, op: str, rng: random.Random) -> tuple[str, str, str] | None:
    """(JSON text, expectation, why) for the structural ``op`` on a parsed document; None when
    ``op`` has nothing to act on in it. Only documented rules are "must refuse": NaN, numbers
    beyond any range, nesting deeper than a record has, a key given twice; the rest may be
    anything named."""
    doc = copy.deepcopy(doc)
    spots = list(nodes(doc))
    inner = [(p, v) for p, v in spots if p]
    if op == "struct-drop-key":
        holders = [(p, v) for p, v in spots if isinstance(v, dict) and v]
        if not holders:
            return None
        p, d = rng.choice(holders)
        del d[rng.choice(list(d))]
        return to_json(doc), ANY, ""
    if op == "struct-wrong-type":
        p, v = rng.choice(inner or spots)
        return to_json(set_at(doc, p, other_type(v, rng))), ANY, ""
    if op == "struct-huge-number":
        p, _ = rng.choice(inner or spots)
        return to_json(set_at(doc, p, huge_int(rng, rng.choice([4301, 5000, 20000])))), REFUSE, "a 5000-digit number"
    if op == "struct-huge-float":
        p, _ = rng.choice(inner or spots)
        big = rng.choice(["1e400", "-1e999", "1" + "0" * 400 + ".5", "2e308"])
        return to_json(set_at(doc, p, Raw(big))), REFUSE, "a number beyond a double"
    if op == "struct-nan":
        p, _ = rng.choice(inner or spots)
        return to_json(set_at(doc, p, Raw(rng.choice(["NaN", "Infinity", "-Infinity"])))), REFUSE, "NaN is not JSON"
    if op == "struct-deep-value":
        p, v = rng.choice(inner or spots)
        return to_json(set_at(doc, p, deep(v, rng.choice([1000, 5000]), rng))), REFUSE, "nested far deeper than a record"
    if op == "struct-deep-document":
        n = rng.choice([1000, 100_000])
        return rng.choice(["[" * n + "]" * n, '{"a":' * n + "1" + "}" * n]), REFUSE, "nested far deeper than a record"
    if op == "struct-dup-key":
        holders = [(p, v) for p, v in spots if isinstance(v, dict) and v]
        if not holders:
            return None
        p, d = rng.choice(holders)
        k = rng.choice(list(d))
        twin = d[k] if rng.random() < 0.5 else other_type(d[k], rng)
        pairs = list(d.items())
        pairs.insert(rng.randrange(len(pairs) + 1), (k, twin))
        return to_json(set_at(doc, p, Pairs(pairs))), REFUSE, f"the key {k!r} twice"
    if op == "struct-not-object":
        return to_json(rng.choice([[], None, "record", 1, [doc], True, {}])), REFUSE, "not the document's shape"
    raise ValueError(op)


def count_mutation(doc: Any, op: str, rng: random.Random) -> tuple[str, str, str] | None:
    """A count (a whole number in the record) made a bool, a string, negative, a fraction, a float
    or 2**63: every one is refused (a count is a whole number within the box)."""
    doc = copy.deepcopy(doc)
    ints = [(p, v) for p, v in nodes(doc) if type(v) is int]
    if not ints:
        return None
    p, v = rng.choice(ints)
    new = {"count-bool": rng.choice([True, False]), "count-string": str(v), "count-negative": -1 - v,
           "count-fraction": v + 0.5, "count-float": float(v), "count-huge": rng.choice([2**63, 2**64 + 1, 10**30])}[op]
    expect = ANY if op == "count-float" else REFUSE
    return to_json(set_at(doc, p, new)), expect, f"{'/'.join(map(str, p))} = {new!r} is not a count"


def special_setup(op: str, name: str) -> tuple[Callable[[Path], None] | None, str | None, bool]:
    """(setup, path to give instead of the file or None, process only) for a special-file op:
    the file ``name`` in the case folder becomes a device, FIFO, folder, nothing, or a link loop."""
    if op == "special-dev-zero":
        return None, "/dev/zero", False
    if op == "special-dev-urandom":
        return None, "/dev/urandom", False
    if op == "special-fifo":
        return (lambda d: os.mkfifo(d / name)), None, True
    if op == "special-dir":
        return (lambda d: (d / name).mkdir(parents=True)), None, False
    if op == "special-missing":
        return None, None, False
    if op == "special-symlink-loop":
        return (lambda d: os.symlink(name, d / name)), None, False
    raise ValueError(op)


def record_ops(game: str) -> tuple[str, ...]:
    """Every operation the record generator knows for ``game``."""
    return (VALID_OPS + STRUCT_OPS + COUNT_OPS + tuple(NAME_OPS) + BYTE_OPS + IMPOSSIBLE_OPS[game] + SPECIAL_OPS
            + ("stdin-valid", "stdin-endless"))


#: (family, weight) of record operations in a campaign.
_RECORD_FAMILIES = (("valid", 5), ("struct", 22), ("count", 10), ("name", 12), ("bytes", 30), ("impossible", 18),
                    ("special", 3))


def _family_ops(game: str, family: str) -> tuple[str, ...]:
    return {"valid": VALID_OPS, "struct": STRUCT_OPS, "count": COUNT_OPS, "name": tuple(NAME_OPS), "bytes": BYTE_OPS,
            "impossible": IMPOSSIBLE_OPS[game], "special": SPECIAL_OPS + ("stdin-valid", "stdin-endless")}[family]


def record_case(game: str, op: str, index: int, seed: int = 14) -> Case:
    """The ``index``-th case of ``op`` for ``companion score --game game``. An op with nothing to act
    on in its base record falls back to a bit flip."""
    rng = random.Random(f"{seed}/score {game}/{op}/{index}")
    bases = base_records(game)
    text = bases[rng.randrange(len(bases))]
    rec = json.loads(text)
    command = f"score {game}"
    argv = ["score", "--game", game] + (["--json"] if rng.random() < 0.5 else []) + ["{d}/record.json"]
    case = Case(command, op, index, argv, ANY)
    payload: bytes | None = None
    if op == "valid":
        payload, case.expect = text.encode(), ACCEPT
    elif op == "valid-reformatted":
        items = list(rec.items())
        rng.shuffle(items)
        indent = rng.choice([None, 1, 4])
        body = to_json(dict(items), indent=indent, ascii_only=rng.random() < 0.5)
        if rng.random() < 0.3:
            body = body.replace("\n", "\r\n")
        payload, case.expect = body.encode(), ACCEPT
    elif op in STRUCT_OPS or op in COUNT_OPS:
        made = (struct_mutation if op in STRUCT_OPS else count_mutation)(rec, op, rng)
        if made is not None:
            body, case.expect, case.why = made
            payload = body.encode("utf-8", "surrogatepass")
    elif op in NAME_OPS:
        seat = rng.randrange(len(rec["players"]))
        rename_player(rec, game, seat, new_name(op, list(rec["players"]), seat, rng))
        payload, case.expect, case.why = to_json(rec).encode(), NAME_OPS[op], op
    elif op in BYTE_OPS:
        payload, case.expect, case.why = byte_mutation(text, op, rng)
    elif op in IMPOSSIBLE_OPS[game]:
        made = _IMPOSSIBLE[game](rec, op, rng)
        if made is not None:
            rec, case.why = made
            payload, case.expect = to_json(rec).encode(), REFUSE
    elif op in SPECIAL_OPS:
        setup, instead, process = special_setup(op, "record.json")
        case.setup, case.expect, case.why = setup, REFUSE, "not a regular file"
        case.argv = [instead if a == "{d}/record.json" and instead else a for a in argv]
        case.where = "isolated" if process or instead else "any"
        return case
    elif op == "stdin-valid":
        case.argv, case.stdin, case.expect, case.where = argv[:-1] + ["-"], text.encode(), ACCEPT, "process"
        return case
    elif op == "stdin-endless":
        case.argv, case.stdin, case.where = argv[:-1] + ["-"], Path(rng.choice(["/dev/zero", "/dev/urandom"])), "process"
        case.expect, case.why = REFUSE, "an endless input"
        return case
    else:
        raise ValueError(op)
    if payload is None:  # nothing to act on: flip bits instead
        payload, case.expect, case.why = byte_mutation(text, "bytes-bit-flip", rng)
        case.op = f"{op}>bytes-bit-flip"
    case.files = {"record.json": payload}
    return case


# --- images ----------------------------------------------------------------------------------------
def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_bytes(width: int, height: int, rows: bytes, color_type: int = 2, bit_depth: int = 8,
              palette: bytes | None = None, ihdr: tuple[int, int] | None = None) -> bytes:
    """A PNG written by hand (PNG spec, ISO/IEC 15948): ``rows`` are the filtered scanlines (each
    led by its filter byte). ``ihdr`` overrides the size the header declares (a lying header)."""
    w, h = ihdr or (width, height)
    out = PNG_SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0))
    if palette is not None:
        out += _chunk(b"PLTE", palette)
    return out + _chunk(b"IDAT", zlib.compress(rows, 6)) + _chunk(b"IEND", b"")


def zeros_deflate(prefix: bytes, n: int) -> bytes:
    """A raw deflate stream (RFC 1951) of ``prefix`` followed by ``n`` zero bytes, at deflate's
    best ratio (≈ 1030:1), in well under a second however big ``n`` is: zlib compresses one 32 MiB
    run of zeros after a full flush (which clears the history), and since it then compresses the
    next run to the same bytes, that block is repeated instead of compressed again."""
    chunk = 32 << 20
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts = [c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)]
    runs, rest = divmod(n, chunk)
    if runs:
        zeros = bytes(chunk)
        block = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
        parts.append(block)
        if runs > 1:
            again = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
            if again != block:  # not zlib's behaviour today; then simply compress every run
                parts.append(again)
                parts += [c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH) for _ in range(runs - 2)]
            else:
                parts += [block] * (runs - 1)
    parts.append(c.compress(bytes(rest)) + c.flush())
    return b"".join(parts)


def _crc32_zeros_after(crc: int, n: int) -> int:
    zeros = bytes(min(n, 32 << 20))
    while n:
        k = min(n, len(zeros))
        crc = zlib.crc32(zeros if k == len(zeros) else zeros[:k], crc)
        n -= k
    return crc


def write_zip(path: Path, members: list[tuple[str, bytes, int, int]]) -> None:
    """A zip file (PKWARE APPNOTE 6.3: local headers, central directory, end record; no zip64,
    so every size < 4 GiB) of already-deflated ``members`` (name, raw deflate data, CRC-32 of the
    uncompressed bytes, uncompressed size)."""
    out, central = bytearray(), bytearray()
    for name, data, crc, size in members:
        raw = name.encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(data), size, len(raw), 0) + raw
        out += data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(data), size,
                               len(raw), 0, 0, 0, 0, 0, offset) + raw
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(bytes(out + central + end))
    os.replace(tmp, path)


def zero_png_file(width: int, height: int) -> Path:
    """A grey 8-bit PNG of ``width`` × ``height`` zero pixels (30000² px: 0.87 MB on disk, 900 MB
    of pixels), its IDAT written by :func:`zeros_deflate`; built once in :data:`CACHE`."""
    path = CACHE / f"zero-{width}x{height}.png"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    n = height * (width + 1)  # each scanline: filter byte 0, then the pixels
    idat = b"\x78\xda" + zeros_deflate(b"", n) + struct.pack(">I", ((n % 65521) << 16) | 1)  # zlib: RFC 1950
    data = (PNG_SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


@functools.lru_cache(maxsize=None)
def base_images() -> dict[str, Any]:
    """The valid images the image cases start from: a card face (BGR, 220 px wide, what
    ``classify`` takes) and a table photo (520 × 360 BGR, three cards of a recorded game's first
    frame)."""
    import cv2

    from companion.sim.faces import draw_card_face

    card = draw_card_face("salmon_nigiri", 220)
    frame = cv2.imread(str(REPLAY_SOURCE / "frames" / "r1-t01.jpg"), cv2.IMREAD_COLOR)
    photo = frame[200:560, 380:900].copy()  # 520 x 360 px, three cards: read cards takes it in ~0.4 s
    return {"card": card, "photo": photo}


def encode(image, ext: str, params: list[int] | None = None) -> bytes:
    import cv2

    ok, buf = cv2.imencode(ext, image, params or [])
    if not ok:
        raise RuntimeError(f"cv2 cannot write {ext}")
    return buf.tobytes()


def valid_image_bytes(op: str, image) -> tuple[bytes, str]:
    """(bytes, suffix) of ``image`` in the layout ``op`` names; every one is an image OpenCV reads."""
    import cv2
    import numpy as np

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    if op == "valid-png":
        return encode(image, ".png"), ".png"
    if op == "valid-jpeg":
        return encode(image, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 90]), ".jpg"
    if op == "valid-progressive-jpeg":
        return encode(image, ".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]), ".jpg"
    if op == "valid-grey":
        return encode(grey, ".png"), ".png"
    if op == "valid-grey-jpeg":
        return encode(grey, ".jpg"), ".jpg"
    if op == "valid-16bit":
        return encode(image.astype(np.uint16) * 257, ".png"), ".png"
    if op == "valid-rgba":
        return encode(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA), ".png"), ".png"
    if op == "valid-16bit-rgba":
        return encode(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA).astype(np.uint16) * 257, ".png"), ".png"
    if op == "valid-grey-alpha":
        ga = np.dstack([grey, np.full_like(grey, 255)])
        rows = b"".join(b"\x00" + ga[y].tobytes() for y in range(h))
        return png_bytes(w, h, rows, color_type=4), ".png"
    if op == "valid-palette":
        q = (grey // 16).astype(np.uint8)
        palette = b"".join(bytes([i * 17] * 3) for i in range(16))
        rows = b"".join(b"\x00" + q[y].tobytes() for y in range(h))
        return png_bytes(w, h, rows, color_type=3, palette=palette), ".png"
    if op == "valid-1bit":
        bits = np.packbits(grey > 128, axis=1)
        rows = b"".join(b"\x00" + bits[y].tobytes() for y in range(h))
        return png_bytes(w, h, rows, color_type=0, bit_depth=1), ".png"
    if op in ("valid-bmp", "valid-tiff", "valid-webp", "valid-ppm"):
        ext = "." + op.split("-")[1]
        return encode(image, ext), ext
    if op == "valid-pgm":
        return encode(grey, ".pgm"), ".pgm"
    raise ValueError(op)


VALID_IMAGE_OPS = ("valid-png", "valid-jpeg", "valid-progressive-jpeg", "valid-grey", "valid-grey-jpeg", "valid-16bit",
                   "valid-rgba", "valid-16bit-rgba", "valid-grey-alpha", "valid-palette", "valid-1bit", "valid-bmp",
                   "valid-tiff", "valid-webp", "valid-ppm", "valid-pgm")
BROKEN_IMAGE_OPS = ("img-truncate", "img-bit-flip", "img-bit-flip-header", "img-wrong-magic", "img-garbage",
                    "img-empty", "img-text", "img-ext-mismatch", "img-trailing-junk", "img-bad-crc", "img-tiny",
                    "img-other-format", "img-pfm")
HUGE_IMAGE_OPS = ("img-huge-zero-png", "img-huge-declared-png", "img-huge-jpeg-header", "img-huge-bmp-header",
                  "img-huge-tiff-header", "img-huge-pnm-header", "img-huge-gif-header", "img-huge-webp-header",
                  "img-thin-row", "img-thin-column", "img-batch-thin-then-good", "img-48mp")
NAME_IMAGE_OPS = ("img-name-not-utf8", "img-name-dash", "img-name-newline")


def _huge_header(op: str, rng: random.Random) -> bytes:
    """A few hundred bytes whose header declares a giant image."""
    if op == "img-huge-declared-png":
        w, h = rng.choice([(60000, 60000), (2**31 - 1, 2**31 - 1), (100000, 100000), (1, 2**31 - 1)])
        return png_bytes(4, 4, b"\x00" * 13 * 4, ihdr=(w, h))
    if op == "img-huge-jpeg-header":
        import cv2
        import numpy as np

        data = bytearray(encode(np.full((16, 16, 3), 128, np.uint8), ".jpg"))
        i = data.index(b"\xff\xc0")
        data[i + 5:i + 9] = struct.pack(">HH", 65500, 65500)
        return bytes(data)
    if op == "img-huge-bmp-header":
        import numpy as np

        data = bytearray(encode(np.zeros((4, 4, 3), np.uint8), ".bmp"))
        data[18:26] = struct.pack("<ii", 100000, rng.choice([100000, -100000]))
        return bytes(data)
    if op == "img-huge-tiff-header":
        # a minimal baseline TIFF (TIFF 6.0, section 2): 8-bit grey, 100000 x 100000, one strip of 16 bytes
        entries = [(256, 4, 1, 100000), (257, 4, 1, 100000), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
                   (273, 4, 1, 8 + 2 + 12 * 8 + 4), (278, 4, 1, 100000), (279, 4, 1, 16)]
        ifd = struct.pack("<H", len(entries)) + b"".join(
            struct.pack("<HHI", tag, typ, n) + (struct.pack("<HH", v, 0) if typ == 3 else struct.pack("<I", v))
            for tag, typ, n, v in entries) + b"\x00\x00\x00\x00"
        return b"II*\x00" + struct.pack("<I", 8) + ifd + b"\x00" * 16
    if op == "img-huge-pnm-header":
        return rng.choice([b"P5\n100000 100000\n255\n", b"P6\n65536 65536\n65535\n", b"P7\nWIDTH 90000\nHEIGHT 90000\n"
                           b"DEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"]) + b"\x00" * 64
    if op == "img-huge-gif-header":
        return b"GIF89a" + struct.pack("<HH", 65535, 65535) + b"\x00\x00\x00" + b",\x00\x00\x00\x00" + struct.pack(
            "<HH", 65535, 65535) + b"\x00\x02\x02\x44\x01\x00;"
    if op == "img-huge-webp-header":
        vp8x = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00" + (16383).to_bytes(3, "little") * 2
        return b"RIFF" + struct.pack("<I", 4 + len(vp8x)) + b"WEBP" + vp8x
    raise ValueError(op)


def image_ops() -> tuple[str, ...]:
    return VALID_IMAGE_OPS + BROKEN_IMAGE_OPS + HUGE_IMAGE_OPS + NAME_IMAGE_OPS + SPECIAL_OPS


_IMAGE_FAMILIES = (("valid", 25), ("broken", 45), ("huge", 15), ("name", 4), ("special", 6))


def _image_family_ops(family: str) -> tuple[str, ...]:
    return {"valid": VALID_IMAGE_OPS, "broken": BROKEN_IMAGE_OPS, "huge": HUGE_IMAGE_OPS, "name": NAME_IMAGE_OPS,
            "special": SPECIAL_OPS}[family]


def big_photo_file() -> Path:
    """A 48 MP (8000 × 6000) JPEG a phone takes: accepted, read at the working size."""
    path = CACHE / "photo-8000x6000.jpg"
    if not path.exists():
        import cv2
        import numpy as np

        CACHE.mkdir(parents=True, exist_ok=True)
        img = np.full((6000, 8000, 3), 90, np.uint8)
        photo = base_images()["photo"]
        img[1000:5800, 500:6900] = cv2.resize(photo, (6400, 4800), interpolation=cv2.INTER_LINEAR)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(encode(img, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, 70]))
        os.replace(tmp, path)
    return path


def image_case(command: str, op: str, index: int, seed: int = 14) -> Case:
    """The ``index``-th case of ``op`` for ``companion classify`` or ``companion read cards``
    (the sim deck, one image, sometimes ``--json``)."""
    import numpy as np

    rng = random.Random(f"{seed}/{command}/{op}/{index}")
    images = base_images()
    image = images["card" if command == "classify" else "photo"]
    head = ["classify"] if command == "classify" else ["read", "cards"]
    head = head + ["--deck", str(DECK)] + (["--json"] if rng.random() < 0.5 else [])
    name = "image.png"
    case = Case(command, op, index, head + ["{d}/" + name], ANY)
    valid_op = rng.choice(VALID_IMAGE_OPS[:11])
    valid = valid_image_bytes(valid_op, image)[0] if not op.startswith(("valid-", "img-huge", "special-")) else b""
    suffix = ".png"
    data: bytes | Path | None = None
    if op in VALID_IMAGE_OPS:
        data, suffix = valid_image_bytes(op, image)
        case.expect = ACCEPT
    elif op == "img-truncate":
        data = valid[: rng.randrange(len(valid))]
    elif op == "img-bit-flip":
        b = bytearray(valid)
        for _ in range(rng.randint(1, 20)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        data = bytes(b)
    elif op == "img-bit-flip-header":
        b = bytearray(valid)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(min(64, len(b)))] ^= 1 << rng.randrange(8)
        data = bytes(b)
    elif op == "img-wrong-magic":
        data = rng.randbytes(rng.choice([2, 4, 8])) + valid[8:]
    elif op == "img-garbage":
        data = rng.randbytes(rng.choice([10, 1000, 100_000]))
    elif op == "img-empty":
        data, case.expect, case.why = rng.choice([b"", b"\x89"]), REFUSE, "no image in the file"
    elif op == "img-text":
        data, case.expect, case.why = b"this is not an image\n" * 10, REFUSE, "not an image"
    elif op == "img-ext-mismatch":
        data = valid
        suffix = rng.choice([".jpg", ".png", ".bmp", ".txt", ""])
    elif op == "img-trailing-junk":
        data = valid + rng.randbytes(rng.choice([1, 100, 100_000]))
    elif op == "img-bad-crc":
        data = encode(image, ".png")
        b = bytearray(data)
        b[29] ^= 0xFF  # the IHDR chunk's CRC (bytes 29-32)
        data = bytes(b)
    elif op == "img-tiny":
        size = rng.choice([(1, 1), (2, 3), (8, 8), (15, 15)])
        data = encode(np.full(size + (3,), 200, np.uint8), rng.choice([".png", ".jpg", ".bmp"]))
    elif op == "img-other-format":
        ext = rng.choice([".jp2", ".avif", ".hdr", ".gif"])
        data, suffix = encode(image, ext), ext
    elif op == "img-pfm":
        data, suffix = encode(image.astype(np.float32) / 255, ".pfm"), ".pfm"
    elif op == "img-huge-zero-png":
        data, case.expect, case.why = zero_png_file(30000, 30000), REFUSE, "900 MP: over the pixel budget"
        case.where = "isolated"
    elif op.startswith("img-huge-"):
        data, case.expect, case.why = _huge_header(op, rng), REFUSE, "a header declaring a giant image over a few bytes"
        case.where = "isolated"
    elif op in ("img-thin-row", "img-thin-column"):
        shape = (1, 100000, 3) if op == "img-thin-row" else (100000, 1, 3)
        data, case.expect, case.why = encode(np.full(shape, 128, np.uint8), ".png"), REFUSE, "1 px thin: nothing fits"
    elif op == "img-batch-thin-then-good":
        case.files = {"thin.png": encode(np.full((1, 100000, 3), 128, np.uint8), ".png"),
                      "good.png": encode(image, ".png")}
        case.argv = head + ["{d}/thin.png", "{d}/good.png"]
        case.expect, case.why = REFUSE, "the thin image is refused and the good one still read"
        case.check = _good_still_read
        return case
    elif op == "img-48mp":
        data, case.expect, case.where = big_photo_file(), ACCEPT, "process"
        suffix = ".jpg"
    elif op == "img-name-not-utf8":
        case.files = {b"caf\xe9.png".decode("utf-8", "surrogateescape"): valid}
        case.argv = [a.encode() for a in head] + [b"{d}/caf\xe9.png"]
        case.where = "process"
        return case
    elif op == "img-name-dash":
        case.files = {"-x.png": valid}
        case.argv = head + ["-x.png"]
        return case
    elif op == "img-name-newline":
        case.files = {"a\nb.png": valid}
        case.argv = head + ["{d}/a\nb.png"]
        return case
    elif op in SPECIAL_OPS:
        setup, instead, process = special_setup(op, name)
        case.setup, case.expect, case.why = setup, REFUSE, "not a regular image file"
        if instead:
            case.argv = head + [instead]
        case.where = "isolated" if process or instead else "any"
        return case
    else:
        raise ValueError(op)
    name = "image" + suffix
    case.argv = head + ["{d}/" + name]
    case.files = {name: data}
    return case


def _good_still_read(folder: Path, stdout: str) -> str | None:
    """The batch's good image must still be reported with a label (README: the others are still read)."""
    for line in stdout.splitlines():
        if "good.png" in line and "ERROR" not in line:
            return None
    if '"image": "' in stdout and "good.png" in stdout:
        try:
            results = json.loads(stdout)
            if any(r.get("image", "").endswith("good.png") and r.get("error") is None for r in results):
                return None
        except ValueError:
            pass
    return "the good image after a refused one was not read"


# --- decks ---------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def base_deck() -> dict[str, Any]:
    """The arrays of the test deck (tests/fixtures/sim-deck.npz)."""
    import numpy as np

    with np.load(DECK, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def npz_bytes(arrays: dict[str, Any], compressed: bool = False) -> bytes:
    """An .npz archive (numpy's format: a zip of .npy members) holding ``arrays``."""
    import numpy as np

    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return buf.getvalue()


def _npy_header(shape: tuple, descr: str) -> bytes:
    import numpy as np

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def hidden_zeros_deck(extra: str, nbytes: int) -> Path:
    """A deck (the test deck's arrays) plus ``nbytes`` of zeros: as an extra float32 array named
    ``extra``, or, when ``extra`` is "templates", as all-zero templates of that size (with a label
    for each). 2 GiB of zeros is 2 MB in the archive (:func:`zeros_deflate`); built once in
    :data:`CACHE`."""
    path = CACHE / f"deck-{extra}-{nbytes >> 20}MiB.npz"
    if path.exists():
        return path
    import numpy as np

    CACHE.mkdir(parents=True, exist_ok=True)
    arrays = dict(base_deck())
    d = arrays["templates"].shape[1]
    if extra == "templates":
        m = nbytes // (4 * d)
        arrays.pop("templates")
        arrays["template_label"] = (np.arange(m) % len(arrays["labels"])).astype(np.int64)
        shape, name = (m, d), "templates"
    else:
        shape, name = (nbytes // 4,), extra
    members = []
    for k, v in arrays.items():
        b = io.BytesIO()
        np.lib.format.write_array(b, np.asarray(v), allow_pickle=False)
        raw = b.getvalue()
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        members.append((k + ".npy", c.compress(raw) + c.flush(), zlib.crc32(raw), len(raw)))
    header = _npy_header(shape, "<f4")
    zeros = int(np.prod(shape)) * 4
    crc = _crc32_zeros_after(zlib.crc32(header), zeros)
    members.append((name + ".npy", zeros_deflate(header, zeros), crc, len(header) + zeros))
    write_zip(path, members)
    return path


class _WritesAFile:
    """Unpickling this writes ``PICKLE_RAN`` in the working folder: proof a pickle was run."""

    def __reduce__(self):
        return (open, ("PICKLE_RAN", "w"))


def _pickle_did_not_run(folder: Path, stdout: str) -> str | None:
    return "a pickle inside the deck was run (it wrote PICKLE_RAN)" if (folder / "PICKLE_RAN").exists() else None


VALID_DECK_OPS = ("valid", "valid-uncompressed", "valid-no-white-balance")
DECK_OPS = VALID_DECK_OPS + (
    "deck-drop-field", "deck-wrong-dtype", "deck-wrong-shape", "deck-empty-array", "deck-nan-templates",
    "deck-inf-threshold", "deck-nan-examples", "deck-labels-numbers", "deck-label-empty", "deck-labels-duplicate",
    "deck-label-unknown", "deck-version-string", "deck-threshold-string", "deck-patch-size-fraction",
    "deck-zero-templates", "deck-template-label-range", "deck-threshold-range", "deck-format-other",
    "deck-version-other", "deck-pickle", "deck-single-npy", "deck-empty-zip", "deck-truncated", "deck-bit-flip",
    "deck-garbage", "deck-extra-2gib-zeros", "deck-templates-1gib-zeros", "deck-declared-huge", "deck-big-endian",
    "deck-extra-small-array", "deck-labels-bytes") + SPECIAL_OPS
_DECK_MUST_REFUSE = {
    "deck-nan-templates": "NaN templates", "deck-inf-threshold": "a threshold that is not finite",
    "deck-nan-examples": "NaN example counts", "deck-labels-numbers": "labels stored as numbers",
    "deck-label-empty": "an empty label", "deck-labels-duplicate": "a label twice",
    "deck-label-unknown": "the label 'unknown'", "deck-version-string": "version as a string",
    "deck-threshold-string": "threshold as a string", "deck-patch-size-fraction": "a fractional patch size",
    "deck-zero-templates": "all-zero templates (no correlation)", "deck-template-label-range": "a template of no label",
    "deck-threshold-range": "a threshold outside [-1, 1]", "deck-format-other": "not a companion deck",
    "deck-version-other": "another descriptor version", "deck-pickle": "a pickle (never loaded)",
    "deck-single-npy": "one array, not an .npz", "deck-empty-zip": "no arrays", "deck-truncated": "a cut zip",
    "deck-garbage": "not a zip", "deck-templates-1gib-zeros": "all-zero templates",
}


def deck_case(op: str, index: int, seed: int = 14) -> Case:
    """The ``index``-th case of ``op`` for ``--deck`` (read by ``classify``, sometimes ``read cards``)."""
    import numpy as np

    rng = random.Random(f"{seed}/--deck/{op}/{index}")
    images = base_images()
    reader = rng.random() < 0.2
    image_name = "photo.jpg" if reader else "card.png"
    image = encode(images["photo"], ".jpg") if reader else encode(images["card"], ".png")
    head = ["read", "cards"] if reader else ["classify"]
    argv = head + ["--deck", "{d}/deck.npz", "{d}/" + image_name]
    case = Case("--deck", op, index, argv, _DECK_MUST_REFUSE.get(op) and REFUSE or ANY, _DECK_MUST_REFUSE.get(op, ""))
    arrays = {k: v.copy() for k, v in base_deck().items()}
    data: bytes | Path | None = None
    if op == "valid":
        data, case.expect = DECK.read_bytes(), ACCEPT
    elif op == "valid-uncompressed":
        data, case.expect = npz_bytes(arrays, compressed=False), ACCEPT
    elif op == "valid-no-white-balance":
        arrays.pop("white_balance", None)
        data, case.expect = npz_bytes(arrays, compressed=True), ACCEPT
    elif op == "deck-drop-field":
        k = rng.choice(sorted(arrays))
        arrays.pop(k)
        if k != "white_balance":
            case.expect, case.why = REFUSE, f"the field {k!r} is missing"
        data = npz_bytes(arrays)
    elif op == "deck-wrong-dtype":
        k = rng.choice(sorted(arrays))
        v = arrays[k]
        new_dtype = rng.choice([np.float64, np.float16, np.int8, np.uint64, np.bool_, np.complex64, "U4", "S4"])
        try:
            arrays[k] = v.astype(new_dtype)
        except (ValueError, TypeError):
            arrays[k] = np.array("x")
        data = npz_bytes(arrays)
    elif op == "deck-wrong-shape":
        k = rng.choice(sorted(arrays))
        v = arrays[k]
        arrays[k] = rng.choice([v.reshape(-1)[:1], v.reshape(1, -1), np.stack([v, v]) if v.ndim else v.reshape(1),
                                v.reshape(-1)[: max(0, v.size - 1)]])
        data = npz_bytes(arrays)
    elif op == "deck-empty-array":
        k = rng.choice(sorted(arrays))
        arrays[k] = np.zeros((0,) + arrays[k].shape[1:], arrays[k].dtype)
        data = npz_bytes(arrays)
    elif op == "deck-nan-templates":
        t = arrays["templates"]
        t.reshape(-1)[rng.randrange(t.size)] = rng.choice([np.nan, np.inf])
        data = npz_bytes(arrays)
    elif op == "deck-inf-threshold":
        arrays["threshold"] = np.array(rng.choice([np.nan, np.inf, -np.inf]))
        data = npz_bytes(arrays)
    elif op == "deck-nan-examples":
        e = arrays["examples"].astype(np.float64)
        e[rng.randrange(e.size)] = np.nan
        arrays["examples"] = e
        data = npz_bytes(arrays)
    elif op == "deck-labels-numbers":
        arrays["labels"] = np.arange(len(arrays["labels"]), dtype=rng.choice([np.int64, np.float64]))
        data = npz_bytes(arrays)
    elif op == "deck-label-empty":
        labels = arrays["labels"].astype("U16")
        labels[rng.randrange(labels.size)] = rng.choice(["", " "]) if rng.random() < 0.8 else ""
        arrays["labels"] = labels
        case.why = "an empty (or blank) label"
        data = npz_bytes(arrays)
    elif op == "deck-labels-duplicate":
        labels = arrays["labels"].copy()
        labels[1] = labels[0]
        arrays["labels"] = labels
        data = npz_bytes(arrays)
    elif op == "deck-label-unknown":
        labels = arrays["labels"].astype("U16")
        labels[rng.randrange(labels.size)] = "unknown"
        arrays["labels"] = labels
        data = npz_bytes(arrays)
    elif op == "deck-version-string":
        arrays["version"] = np.array(rng.choice(["1", "01", " 1"]))
        data = npz_bytes(arrays)
    elif op == "deck-threshold-string":
        arrays["threshold"] = np.array(str(float(arrays["threshold"])))
        data = npz_bytes(arrays)
    elif op == "deck-patch-size-fraction":
        arrays["patch_size"] = np.array(rng.choice([[30.5, 43.0], [30.0, 43.9], [30.2, 43.2]]))
        data = npz_bytes(arrays)
    elif op == "deck-zero-templates":
        arrays["templates"] = np.zeros_like(arrays["templates"])
        data = npz_bytes(arrays)
    elif op == "deck-template-label-range":
        tl = arrays["template_label"]
        tl[rng.randrange(tl.size)] = rng.choice([-1, len(arrays["labels"]), 2**40])
        data = npz_bytes(arrays)
    elif op == "deck-threshold-range":
        arrays["threshold"] = np.array(rng.choice([1.5, -2.0, 1e300]))
        data = npz_bytes(arrays)
    elif op == "deck-format-other":
        arrays["format"] = np.array(rng.choice(["companion-dice", "", "Companion-Deck"]))
        data = npz_bytes(arrays)
    elif op == "deck-version-other":
        arrays["version"] = np.array(rng.choice([0, 2, -1, 2**62]), np.int64)
        data = npz_bytes(arrays)
    elif op == "deck-pickle":
        arrays[rng.choice(["labels", "extra", "templates"])] = np.array([_WritesAFile()], dtype=object)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for k, v in arrays.items():
                b = io.BytesIO()
                np.lib.format.write_array(b, np.asarray(v), allow_pickle=True)
                zf.writestr(k + ".npy", b.getvalue())
        data = buf.getvalue()
        case.check = _pickle_did_not_run
    elif op == "deck-single-npy":
        b = io.BytesIO()
        np.save(b, arrays["templates"])
        data = b.getvalue()
    elif op == "deck-empty-zip":
        b = io.BytesIO()
        zipfile.ZipFile(b, "w").close()
        data = b.getvalue()
    elif op == "deck-truncated":
        full = DECK.read_bytes()
        data = full[: rng.randrange(len(full))]
    elif op == "deck-bit-flip":
        b = bytearray(npz_bytes(arrays, compressed=rng.random() < 0.5))
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        data = bytes(b)
    elif op == "deck-garbage":
        data = rng.choice([rng.randbytes(1000), b"PK\x03\x04" + rng.randbytes(200), b"", b"\x93NUMPY"])
    elif op == "deck-extra-2gib-zeros":
        data, case.where = hidden_zeros_deck("junk", 2 << 30), "isolated"
        case.why = "a valid deck plus 2 GiB of zeros it does not need"
    elif op == "deck-templates-1gib-zeros":
        data, case.where = hidden_zeros_deck("templates", 1 << 30), "isolated"
    elif op == "deck-declared-huge":
        shape = rng.choice([(10**10,), (3 * 10**8,), (2**40, 3870), (169, 3870 * 10**6)])
        members = {k: v for k, v in arrays.items() if k != "templates"}
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w") as zf:
            for k, v in members.items():
                mb = io.BytesIO()
                np.lib.format.write_array(mb, np.asarray(v))
                zf.writestr(k + ".npy", mb.getvalue())
            zf.writestr("templates.npy", _npy_header(shape, "<f4") + b"\x00" * 4096)
        data, case.where = b.getvalue(), "isolated"
        case.why = "a header declaring a giant array over 4 KB"
    elif op == "deck-big-endian":
        arrays["templates"] = arrays["templates"].astype(">f4")
        data = npz_bytes(arrays)
    elif op == "deck-extra-small-array":
        arrays[rng.choice(["notes", "x", "fine_label"])] = np.arange(5)
        data = npz_bytes(arrays)
    elif op == "deck-labels-bytes":
        arrays["labels"] = arrays["labels"].astype("S16")
        data = npz_bytes(arrays)
    elif op in SPECIAL_OPS:
        setup, instead, process = special_setup(op, "deck.npz")
        case.setup, case.expect, case.why = setup, REFUSE, "not a regular deck file"
        case.files = {image_name: image}
        if instead:
            case.argv = head + ["--deck", instead, "{d}/" + image_name]
        case.where = "isolated" if process or instead else "any"
        return case
    else:
        raise ValueError(op)
    case.files = {"deck.npz": data, image_name: image}
    return case


# --- replay fixtures -----------------------------------------------------------------------------
REPLAY_FRAMES = 2


@functools.lru_cache(maxsize=None)
def base_fixture() -> dict:
    """game.json of a 2-frame fixture (the recorded 4-player game's first two reveals), deck by
    absolute path: a valid fixture whose replay stops when the frames run out (exit 1)."""
    game = json.loads((REPLAY_SOURCE / "game.json").read_text())
    game["deck"] = str(DECK)
    game["frames"] = game["frames"][:REPLAY_FRAMES]
    return game


def _fixture_files(game_json: bytes | Path | None) -> dict:
    files = {f"fx/{f['file']}": REPLAY_SOURCE / f["file"] for f in base_fixture()["frames"]}
    if game_json is not None:
        files["fx/game.json"] = game_json
    return files


REPLAY_OPS = ("valid", "valid-json", "valid-screens") + STRUCT_OPS + tuple(NAME_OPS) + (
    "bytes-bit-flip", "bytes-truncate", "bytes-not-utf8", "bytes-utf16", "bytes-nul", "bytes-empty", "bytes-padded",
    "fx-frames-empty", "fx-frames-not-list", "fx-frame-nul", "fx-frame-dev-zero", "fx-frame-missing", "fx-frame-dir",
    "fx-frame-fifo", "fx-frame-huge-png", "fx-frame-thin", "fx-frame-outside", "fx-frame-text", "fx-deck-dev-zero",
    "fx-deck-dir", "fx-deck-missing", "fx-deck-nul", "fx-deck-garbage", "fx-game-other", "fx-players-not-list",
    "fx-options-bad", "fx-file-for-folder", "fx-game-json-dir", "fx-game-json-loop", "fx-folder-missing",
    "fx-folder-nul", "fx-game-json-missing", "fx-game-json-fifo", "fx-game-json-dev-zero", "fx-screens-file",
    "fx-screens-under-file", "fx-screens-nul", "fx-folder-loop")


def replay_case(op: str, index: int, seed: int = 14) -> Case:
    """The ``index``-th case of ``op`` for ``companion replay`` (a 2-frame fixture)."""
    import numpy as np

    rng = random.Random(f"{seed}/replay/{op}/{index}")
    game = copy.deepcopy(base_fixture())
    argv = ["replay", "{d}/fx"] + (["--json"] if rng.random() < 0.3 else [])
    case = Case("replay", op, index, argv, ANY, ok_codes=(0, 1), refuse_codes=(2,))
    text = json.dumps(game, indent=1)
    body: bytes | None = None
    if op == "valid":
        body, case.expect = text.encode(), ACCEPT
    elif op == "valid-json":
        body, case.expect, case.argv = text.encode(), ACCEPT, ["replay", "--json", "{d}/fx"]
    elif op == "valid-screens":
        body, case.expect, case.argv = text.encode(), ACCEPT, ["replay", "{d}/fx", "--screens", "{d}/screens"]
    elif op in STRUCT_OPS:
        made = struct_mutation(game, op, rng)
        if made is None:
            made = (text, ANY, "")
        body = made[0].encode("utf-8", "surrogatepass")
        # NaN, deep nesting and repeated keys break the JSON rules whatever field they are in
        if op in ("struct-nan", "struct-deep-document", "struct-dup-key", "struct-not-object"):
            case.expect, case.why = REFUSE, made[2]
    elif op in NAME_OPS:
        seat = rng.randrange(len(game["players"]))
        game["players"][seat] = new_name(op, list(game["players"]), seat, rng)
        body, case.expect, case.why = to_json(game).encode(), NAME_OPS[op], op
    elif op.startswith("bytes-"):
        body, case.expect, case.why = byte_mutation(text, op, rng)
    elif op == "fx-frames-empty":
        game["frames"] = []
        body, case.expect, case.why = to_json(game).encode(), REFUSE, "no frames"
    elif op == "fx-frames-not-list":
        game["frames"] = rng.choice(["frames/", {"file": "frames/r1-t01.jpg"}, 3, None])
        body, case.expect, case.why = to_json(game).encode(), REFUSE, "frames is not a list"
    elif op.startswith("fx-frame-"):
        what = op[len("fx-frame-"):]
        i = rng.randrange(len(game["frames"]))
        target = {"nul": "frames/r1\x00.jpg", "dev-zero": "/dev/zero", "missing": "frames/none.jpg", "dir": "frames",
                  "fifo": "frames/fifo.jpg", "huge-png": "frames/huge.png", "thin": "frames/thin.png",
                  "outside": "../../../../../../etc/passwd", "text": "game.json"}[what]
        game["frames"][i]["file"] = target
        body = to_json(game).encode()
        if what == "fifo":
            case.setup, case.where = (lambda d: os.mkfifo(d / "fx" / "frames" / "fifo.jpg")), "isolated"
        if what == "huge-png":
            case.files["fx/frames/huge.png"] = zero_png_file(30000, 30000)
            case.where = "isolated"
        if what == "thin":
            case.files["fx/frames/thin.png"] = encode(np.full((1, 100000, 3), 128, np.uint8), ".png")
    elif op.startswith("fx-deck-"):
        what = op[len("fx-deck-"):]
        game["deck"] = {"dev-zero": "/dev/zero", "dir": "frames", "missing": "nodeck.npz", "nul": "deck\x00.npz",
                        "garbage": "frames/r1-t01.jpg"}[what]
        body, case.expect, case.why = to_json(game).encode(), REFUSE, "the deck cannot be used"
    elif op == "fx-game-other":
        game["game"] = rng.choice(["sushi-roll", "chess", "", 1])
        body, case.expect, case.why = to_json(game).encode(), REFUSE, "only sushi-go replays"
    elif op == "fx-players-not-list":
        game["players"] = rng.choice(["Ann,Bo,Cy,Di", {"Ann": 1}, 4, None, []])
        body, case.expect, case.why = to_json(game).encode(), REFUSE, "players is not a list of names"
    elif op == "fx-options-bad":
        game["options"] = rng.choice([{"dummy": "yes"}, {"nonsense": True}, [], "dummy", {"dummy": True}])
        body = to_json(game).encode()
    elif op == "fx-file-for-folder":
        body, case.argv = text.encode(), ["replay", "{d}/fx/game.json"]
        case.expect, case.why = REFUSE, "game.json given instead of its folder"
    elif op == "fx-game-json-dir":
        case.setup = lambda d: (d / "fx" / "game.json").mkdir()
        case.expect, case.why = REFUSE, "game.json is a folder"
    elif op == "fx-game-json-loop":
        case.setup = lambda d: os.symlink("game.json", d / "fx" / "game.json")
        case.expect, case.why = REFUSE, "game.json is a link loop"
    elif op == "fx-folder-loop":
        case.files = {}
        case.setup = lambda d: os.symlink("fx", d / "fx")
        case.expect, case.why = REFUSE, "the folder is a link loop"
        return case
    elif op == "fx-folder-missing":
        case.files, case.argv = {}, ["replay", "{d}/nothing-here"]
        case.expect, case.why = REFUSE, "no such folder"
        return case
    elif op == "fx-folder-nul":
        case.files, case.argv, case.where = {}, ["replay", "{d}/fx\x00x"], "inline"
        case.expect, case.why = REFUSE, "a NUL in the folder name"
        return case
    elif op == "fx-game-json-missing":
        case.expect, case.why = REFUSE, "no game.json"
    elif op == "fx-game-json-fifo":
        case.setup, case.where = (lambda d: os.mkfifo(d / "fx" / "game.json")), "isolated"
        case.expect, case.why = REFUSE, "game.json is a FIFO"
    elif op == "fx-game-json-dev-zero":
        case.setup = lambda d: os.symlink("/dev/zero", d / "fx" / "game.json")
        case.expect, case.why = REFUSE, "game.json is /dev/zero"
    elif op == "fx-screens-file":
        body = text.encode()
        case.files["screens.png"] = b"not a folder"
        case.argv = ["replay", "{d}/fx", "--screens", "{d}/screens.png"]
        case.expect, case.why = REFUSE, "--screens names a file"
    elif op == "fx-screens-under-file":
        body = text.encode()
        case.files["afile"] = b"x"
        case.argv = ["replay", "{d}/fx", "--screens", "{d}/afile/screens"]
        case.expect, case.why = REFUSE, "--screens under a file"
    elif op == "fx-screens-nul":
        body, case.where = text.encode(), "inline"
        case.argv = ["replay", "{d}/fx", "--screens", "{d}/scr\x00eens"]
        case.expect, case.why = REFUSE, "a NUL in --screens"
    else:
        raise ValueError(op)
    case.files = {**_fixture_files(body), **case.files}
    return case


# --- journals --------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def base_journal() -> bytes:
    """A journal (SQLite) holding a finished 3-player Sushi Go! game (id 1) and an unfinished
    2-player one (id 2), written through :class:`companion.app.journal.Journal` as ``play`` does
    (turn events replayed by the game's adapter), with fixed times so the bytes are the same
    every run."""
    import sqlite3

    from companion.app.games import adapter
    from companion.app.journal import Journal
    from companion.rules.sushi_go import apply, legal_plays, new_game

    go = adapter("sushi-go")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.sqlite3"
        with Journal(path) as j:
            for players, seed, finish in ((["Ann", "Bo", "Cy"], 1, True), (["Di", "Ed"], 2, False)):
                rng = random.Random(seed)
                state = new_game(players, rng)
                g = j.new_game("sushi-go", players, {})
                n = 0
                while not state.is_over and (finish or n < 7):
                    where, plays = (state.round, state.turn), {}
                    for seat in state.waiting_for():
                        play = rng.choice(legal_plays(state, seat))
                        plays[str(seat)] = [c.value for c in play.cards]
                        state = apply(state, play)
                    j.append(g, "turn", {"round": where[0], "turn": where[1], "plays": plays}, {"frame": n})
                    n += 1
                if finish:
                    j.finish(g, go.result(go.rebuild(players, {}, j.events(g))))
        con = sqlite3.connect(path)
        con.execute("UPDATE games SET created = 1700000000.0 + id, ended = CASE WHEN ended IS NULL THEN NULL "
                    "ELSE 1700003600.0 END")
        con.execute("UPDATE events SET t = 1700000000.0 + id")
        con.commit()
        con.execute("PRAGMA journal_mode=DELETE")
        con.close()
        return path.read_bytes()


#: SQL that rewrites a journal into shapes the program never writes.
JOURNAL_SQL = {
    "sql-players-not-json": "UPDATE games SET players = '[\"Ann\", ' WHERE id = {g}",
    "sql-players-number": "UPDATE games SET players = '7' WHERE id = {g}",
    "sql-players-empty": "UPDATE games SET players = '[]' WHERE id = {g}",
    "sql-players-bad-name": "UPDATE games SET players = '[\"A\\u0000nn\", \"\", \"Cy\"]' WHERE id = {g}",
    "sql-players-dup": "UPDATE games SET players = '[\"Ann\", \"Ann\", \"Cy\"]' WHERE id = {g}",
    "sql-players-many": "UPDATE games SET players = '[" + ", ".join(f'"P{i}"' for i in range(40)) + "]' WHERE id = {g}",
    "sql-options-not-json": "UPDATE games SET options = '{{' WHERE id = {g}",
    "sql-options-list": "UPDATE games SET options = '[1, 2]' WHERE id = {g}",
    "sql-options-unknown": "UPDATE games SET options = '{{\"nonsense\": true}}' WHERE id = {g}",
    "sql-options-wrong-type": "UPDATE games SET options = '{{\"dummy\": \"yes\"}}' WHERE id = {g}",
    "sql-result-not-json": "UPDATE games SET result = 'nope' WHERE id = {g}",
    "sql-result-shape": "UPDATE games SET result = '[1]' WHERE id = {g}",
    "sql-result-total-shape": "UPDATE games SET result = '{{\"total\": 5, \"winners\": 3}}' WHERE id = {g}",
    "sql-payload-not-json": "UPDATE events SET payload = '{{' WHERE id = (SELECT MIN(id) FROM events WHERE game_id = {g})",
    "sql-payload-list": "UPDATE events SET payload = '[]' WHERE game_id = {g}",
    "sql-payload-unknown-card": "UPDATE events SET payload = replace(payload, 'tempura', 'pizza') WHERE game_id = {g}",
    "sql-payload-bad-seat": "UPDATE events SET payload = replace(payload, '\"0\"', '\"9\"') WHERE game_id = {g}",
    "sql-payload-seat-word": "UPDATE events SET payload = replace(payload, '\"1\"', '\"one\"') WHERE game_id = {g}",
    "sql-payload-huge": "UPDATE events SET payload = '{{\"round\": 1, \"turn\": 1, \"plays\": {{}}, \"x\": \"' || "
                        "hex(zeroblob(3000000)) || '\"}}' WHERE id = (SELECT MIN(id) FROM events WHERE game_id = {g})",
    "sql-payload-deep": "UPDATE events SET payload = '" + "[" * 5000 + "]" * 5000 + "' WHERE game_id = {g}",
    "sql-payload-huge-number": "UPDATE events SET payload = replace(payload, '\"round\": 1', '\"round\": 1" + "0" * 5000
                               + "') WHERE game_id = {g}",
    "sql-payload-nan": "UPDATE events SET payload = replace(payload, '\"round\": 1', '\"round\": NaN') WHERE game_id = {g}",
    "sql-kind-unknown": "UPDATE events SET kind = 'teleport' WHERE id = (SELECT MAX(id) FROM events WHERE game_id = {g})",
    "sql-seq-gap": "UPDATE events SET seq = seq + 100 WHERE id = (SELECT MAX(id) FROM events WHERE game_id = {g})",
    "sql-turn-twice": "INSERT INTO events(game_id, seq, kind, payload, source, t) SELECT game_id, seq + 1000, kind, "
                      "payload, source, t FROM events WHERE game_id = {g} ORDER BY seq LIMIT 1",
    "sql-events-deleted": "DELETE FROM events WHERE game_id = {g}",
    "sql-game-unknown": "UPDATE games SET game = 'chess' WHERE id = {g}",
    "sql-game-null-bytes": "UPDATE games SET game = 'sushi-go' || char(0) WHERE id = {g}",
    "sql-schema-other": "UPDATE meta SET value = '2' WHERE key = 'schema'",
    "sql-schema-word": "UPDATE meta SET value = 'one' WHERE key = 'schema'",
    "sql-app-other": "UPDATE meta SET value = 'other' WHERE key = 'app'",
    "sql-meta-dropped": "DROP TABLE meta",
    "sql-events-dropped": "DROP TABLE events",
    "sql-ended-no-result": "UPDATE games SET result = NULL WHERE id = {g}",
    "sql-created-text": "UPDATE games SET created = 'yesterday' WHERE id = {g}",
    "sql-created-huge": "UPDATE games SET created = 1e300 WHERE id = {g}",
    "sql-id-huge": "UPDATE games SET id = 9223372036854775807 WHERE id = {g}",
    "sql-players-blob": "UPDATE games SET players = x'ff00fe' WHERE id = {g}",
    # the finished game (1) changed into one that cannot have been played: its export must refuse
    "sql-finished-unknown-card": "UPDATE events SET payload = replace(payload, '\"sashimi\"', '\"pizza\"') "
                                 "WHERE game_id = 1",
    "sql-finished-turn-twice": "INSERT INTO events(game_id, seq, kind, payload, source, t) SELECT game_id, seq + 1000, "
                               "kind, payload, source, t FROM events WHERE game_id = 1 ORDER BY seq DESC LIMIT 1",
}
#: SQL operations whose game 1 can no longer be exported: a record or a result of it must be refused.
_JOURNAL_UNPLAYABLE = {"sql-finished-unknown-card": "a card that is not in the game",
                       "sql-finished-turn-twice": "a turn after the game ended"}
JOURNAL_BYTE_OPS = ("jbytes-bit-flip", "jbytes-bit-flip-header", "jbytes-truncate", "jbytes-zero-page",
                    "jbytes-append", "jbytes-garbage", "jbytes-empty")
JOURNAL_OPS = ("valid",) + JOURNAL_BYTE_OPS + tuple(JOURNAL_SQL) + SPECIAL_OPS
#: The journal commands and whether the valid journal's answer to them is success.
JOURNAL_COMMANDS = (
    (["games", "--journal", "{d}/journal.sqlite3"], True),
    (["games", "--json", "--journal", "{d}/journal.sqlite3"], True),
    (["export", "1", "--json", "--journal", "{d}/journal.sqlite3"], True),
    (["export", "1", "--record", "{d}/out.json", "--journal", "{d}/journal.sqlite3"], True),
    (["export", "latest", "--json", "--journal", "{d}/journal.sqlite3"], False),
    (["export", "2", "--record", "{d}/out.json", "--journal", "{d}/journal.sqlite3"], False),
)


def journal_case(op: str, index: int, seed: int = 14, command: int | None = None) -> Case:
    """The ``index``-th case of ``op`` for ``companion games`` / ``companion export``; the command
    line is drawn from :data:`JOURNAL_COMMANDS`, or is its ``command``-th."""
    import sqlite3

    rng = random.Random(f"{seed}/journal/{op}/{index}")
    argv, succeeds = rng.choice(JOURNAL_COMMANDS if op != "valid" else [c for c in JOURNAL_COMMANDS if c[1]])
    if command is not None:
        argv, succeeds = JOURNAL_COMMANDS[command]
    case = Case("games/export", op, index if command is None else 100 * (command + 1) + index, list(argv), ANY)
    data = base_journal()
    if op == "valid":
        case.expect = ACCEPT if succeeds else ANY
    elif op == "jbytes-bit-flip":
        b = bytearray(data)
        for _ in range(rng.randint(1, 16)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        data = bytes(b)
    elif op == "jbytes-bit-flip-header":
        b = bytearray(data)
        b[rng.randrange(16, 100)] ^= 1 << rng.randrange(8)
        data = bytes(b)
    elif op == "jbytes-truncate":
        data = data[: rng.randrange(len(data))]
    elif op == "jbytes-zero-page":
        page = int.from_bytes(data[16:18], "big") or 65536
        pages = max(1, len(data) // page)
        p = rng.randrange(pages)
        data = data[: p * page] + b"\x00" * page + data[(p + 1) * page:]
    elif op == "jbytes-append":
        data = data + rng.randbytes(rng.choice([1, 100, 5000]))
    elif op == "jbytes-garbage":
        data = rng.choice([rng.randbytes(4096), b"SQLite format 3\x00" + rng.randbytes(200), b"hello\n"])
        case.expect, case.why = REFUSE, "not a journal"
    elif op == "jbytes-empty":
        data = b""
    elif op in JOURNAL_SQL:
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp) / "j.sqlite3"
            p.write_bytes(data)
            con = sqlite3.connect(p)
            try:
                con.execute(JOURNAL_SQL[op].format(g=rng.choice([1, 1, 2])))
                con.commit()
            finally:
                con.close()
            data = p.read_bytes()
        if op in ("sql-schema-other", "sql-schema-word", "sql-app-other", "sql-meta-dropped"):
            case.expect, case.why = REFUSE, "not a journal of this version"
        if op in _JOURNAL_UNPLAYABLE and case.argv[:2] == ["export", "1"]:
            case.expect, case.why = REFUSE, _JOURNAL_UNPLAYABLE[op]
    elif op in SPECIAL_OPS:
        setup, instead, process = special_setup(op, "journal.sqlite3")
        case.setup, case.expect, case.why = setup, REFUSE, "not a journal file"
        case.argv = [instead if a == "{d}/journal.sqlite3" and instead else a for a in case.argv]
        case.where = "isolated" if process or instead else "any"
        return case
    else:
        raise ValueError(op)
    case.files = {"journal.sqlite3": data}
    return case


# --- panel scripts ----------------------------------------------------------------------------------
PANEL_EVENTS = ("left", "right", "ok", "back", "undo", "menu", "undo_turn")
PANEL_OPS = ("valid", "valid-empty") + STRUCT_OPS + (
    "panel-unknown-event", "panel-t-negative", "panel-t-decreasing", "panel-t-bool", "panel-t-string",
    "panel-extra-key", "panel-entry-not-object", "panel-missing-t", "panel-missing-event", "panel-many-entries",
    "panel-t-huge") + ("bytes-bit-flip", "bytes-truncate", "bytes-not-utf8", "bytes-utf16", "bytes-nul",
                       "bytes-empty") + ("special-dev-zero", "special-fifo", "special-dir", "special-missing")
_PANEL_REFUSE = {"panel-unknown-event": "an event the panel has not", "panel-t-negative": "t < 0",
                 "panel-t-decreasing": "entries out of time order", "panel-t-bool": "t is a bool",
                 "panel-t-string": "t is a string", "panel-extra-key": "an unknown key",
                 "panel-entry-not-object": "an entry that is not an object", "panel-missing-t": "no t",
                 "panel-missing-event": "no event", "struct-nan": "NaN", "struct-huge-number": "a 5000-digit t",
                 "struct-huge-float": "t beyond a double", "struct-deep-value": "deep nesting",
                 "struct-deep-document": "deep nesting", "struct-dup-key": "a key twice",
                 "struct-not-object": "not a list"}


def panel_case(op: str, index: int, seed: int = 14) -> Case:
    """The ``index``-th case of ``op`` for ``companion play --panel script:FILE``: a replayed camera
    of one frame (the recorded 4-player game's first reveal), so a good script sees one turn
    applied and the run ends when the frames do (exit 1)."""
    rng = random.Random(f"{seed}/panel/{op}/{index}")
    t = 0.0
    script = []
    for _ in range(rng.randint(1, 6)):
        t += rng.choice([0, 0.1, 0.5, 1.0])
        script.append({"t": round(t, 2), "event": rng.choice(("left", "right", "ok", "back"))})
    argv = ["play", "--players", "Ann,Bo,Cy,Di", "--camera", "replay:{d}/frames", "--deck", str(DECK),
            "--display", "none", "--journal", "{d}/journal.sqlite3", "--panel", "script:{d}/script.json"] + (
        ["--json"] if rng.random() < 0.3 else [])
    case = Case("panel script", op, index, argv, _PANEL_REFUSE.get(op) and REFUSE or ANY, _PANEL_REFUSE.get(op, ""),
                ok_codes=(0, 1), refuse_codes=(2,))
    text = json.dumps(script)
    body: bytes | None = None
    i = rng.randrange(len(script))
    if op == "valid":
        body, case.expect = text.encode(), ACCEPT
    elif op == "valid-empty":
        body, case.expect = b"[]", ACCEPT
    elif op in STRUCT_OPS:
        made = struct_mutation(script, op, rng)
        body = (made[0] if made else text).encode("utf-8", "surrogatepass")
        if op in ("struct-drop-key",):
            case.expect, case.why = REFUSE, "an entry without t or event"
        if op == "struct-not-object":
            # [] is an empty script, a good one; everything else it makes is not a list of entries
            case.expect = ANY if body.strip() == b"[]" else REFUSE
    elif op.startswith("panel-"):
        e = script[i]
        if op == "panel-unknown-event":
            e["event"] = rng.choice(["OK", "press", "", "undo turn", "left\x00"])
        elif op == "panel-t-negative":
            e["t"] = rng.choice([-1, -0.001, -1e300])
        elif op == "panel-t-decreasing":
            last = script[-1]["t"]
            script += [{"t": last + 1.0, "event": "ok"}, {"t": last + 0.5, "event": "left"}]
        elif op == "panel-t-bool":
            e["t"] = True
        elif op == "panel-t-string":
            e["t"] = rng.choice(["1", "0.5s", ""])
        elif op == "panel-extra-key":
            e[rng.choice(["seat", "T", "button", "t "])] = 1
        elif op == "panel-entry-not-object":
            script[i] = rng.choice([["ok", 1], "ok", 1, None])
        elif op == "panel-missing-t":
            del e["t"]
        elif op == "panel-missing-event":
            del e["event"]
        elif op == "panel-many-entries":
            n = rng.choice([10_000, 200_000])
            body = json.dumps([{"t": k * 0.001, "event": "left"} for k in range(n)]).encode()
        elif op == "panel-t-huge":
            e["t"] = rng.choice([1e308, 10**18])
            for later in script[i + 1:]:
                later["t"] = e["t"]
        body = body or to_json(script).encode()
    elif op.startswith("bytes-"):
        body, case.expect, case.why = byte_mutation(text, op, rng)
    elif op.startswith("special-"):
        setup, instead, process = special_setup(op, "script.json")
        case.setup, case.expect, case.why = setup, REFUSE, "not a regular script file"
        if instead:
            case.argv = [f"script:{instead}" if a == "script:{d}/script.json" else a for a in argv]
        case.where = "isolated" if process or instead else "any"
    else:
        raise ValueError(op)
    case.files = {"frames/r1-t01.jpg": REPLAY_SOURCE / "frames" / "r1-t01.jpg"}
    if body is not None:
        case.files["script.json"] = body
    return case


# --- campaigns --------------------------------------------------------------------------------------
#: Share of a campaign's cases per command (the rest of the table's 100 %: score records).
CAMPAIGN_SHARES = (("classify", 0.026), ("read cards", 0.026), ("--deck", 0.03), ("replay", 0.025),
                   ("games/export", 0.025), ("panel script", 0.02))


def campaign(total: int, seed: int) -> list[tuple[str, str, int]]:
    """``total`` (command, op, index) triples over every command, in the shares of
    :data:`CAMPAIGN_SHARES` (score records of the three games share the rest), each op drawn from
    its own seeded generator; :func:`build` makes the case (lazily: a campaign's inputs together
    would not fit in memory)."""
    counts = {cmd: max(1, round(total * share)) for cmd, share in CAMPAIGN_SHARES}
    left = max(3, total - sum(counts.values()))
    for g in SCORE_GAMES:
        counts[f"score {g}"] = left // 3 + (1 if SCORE_GAMES.index(g) < left % 3 else 0)
    specs: list[tuple[str, str, int]] = []
    for command in COMMANDS:
        for i in range(counts.get(command, 0)):
            rng = random.Random(f"{seed}/pick/{command}/{i}")
            if command.startswith("score "):
                game = command.split()[1]
                family = rng.choices([f for f, _ in _RECORD_FAMILIES], [w for _, w in _RECORD_FAMILIES])[0]
                op = rng.choice(_family_ops(game, family))
            elif command in ("classify", "read cards"):
                family = rng.choices([f for f, _ in _IMAGE_FAMILIES], [w for _, w in _IMAGE_FAMILIES])[0]
                op = rng.choice(_image_family_ops(family))
            else:
                op = rng.choice({"--deck": DECK_OPS, "replay": REPLAY_OPS, "games/export": JOURNAL_OPS,
                                 "panel script": PANEL_OPS}[command])
            specs.append((command, op, i))
    return specs


def build(command: str, op: str, index: int, seed: int = 14) -> Case:
    """The case a (command, op, index) triple of :func:`campaign` names."""
    if command.startswith("score "):
        return record_case(command.split()[1], op, index, seed)
    if command in ("classify", "read cards"):
        return image_case(command, op, index, seed)
    maker = {"--deck": deck_case, "replay": replay_case, "games/export": journal_case, "panel script": panel_case}
    return maker[command](op, index, seed)


# --- running ----------------------------------------------------------------------------------------
def materialize(case: Case, parent: Path) -> Path:
    """Write the case's files under a fresh folder in ``parent``; return the folder."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", case.ident)
    folder = Path(tempfile.mkdtemp(prefix=safe[:80] + "-", dir=parent))
    for rel, content in case.files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            try:
                os.link(content, path)
            except OSError:
                shutil.copyfile(content, path)
        else:
            path.write_bytes(content)
    if case.setup is not None:
        case.setup(folder)
    if case.stdin is not None and not isinstance(case.stdin, Path):
        (folder / ".stdin").write_bytes(case.stdin)
    return folder


def concrete_argv(case: Case, folder: Path) -> list:
    """The case's argv with ``{d}`` replaced by its folder."""
    out = []
    for a in case.argv:
        if isinstance(a, bytes):
            out.append(a.replace(b"{d}", os.fsencode(folder)))
        else:
            out.append(a.replace("{d}", str(folder)))
    return out


def _stdin_path(case: Case, folder: Path) -> Path | None:
    if case.stdin is None:
        return None
    return case.stdin if isinstance(case.stdin, Path) else folder / ".stdin"


def repro_command(case: Case, folder: Path) -> str:
    """A shell line that runs the case again through the installed ``companion``."""
    exe = Path(sys.executable).with_name("companion")
    parts = [shlex.quote(os.fsdecode(a) if isinstance(a, bytes) else a) for a in concrete_argv(case, folder)]
    line = f"{exe} " + " ".join(parts)
    stdin = _stdin_path(case, folder)
    if stdin is not None:
        line += f" < {shlex.quote(str(stdin))}"
    if any("\x00" in (a if isinstance(a, str) else "") for a in case.argv):
        line += "   # holds a NUL: only companion.cli.main(argv) can be given it"
    return line


def _vm_hwm_kb(pid: int | str = "self", field: str = "VmHWM") -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


#: What a fresh ``companion`` process holds before reading anything, MB (Python, numpy, cv2
#: imported: measured 60–250 MB); an inline case's growth is added to it to stand for the peak
#: the same command would reach as its own process.
INLINE_BASE_MB = 250


def _reset_peak() -> bool:
    """Reset this process's peak resident set (Linux ≥ 4.0: ``echo 5 > /proc/self/clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class _Timeout(BaseException):
    pass


def _trim(text: str, head: int = 4000, tail: int = 6000) -> str:
    return text if len(text) <= head + tail else text[:head] + f"\n[... {len(text) - head - tail} characters ...]\n" + text[-tail:]


def run_inline(argv: list, cwd: Path, stdin: Path | None = None, timeout: float | None = TIMEOUT_S,
               own_peak: bool = False) -> Outcome:
    """``companion.cli.main(argv)`` in this process, in ``cwd``, with stdin from the file ``stdin``
    (else empty) and stdout/stderr captured as the real streams would take them (stdout strict
    UTF-8 until the command reconfigures it, stderr with backslash escapes). An exception that
    escapes ``main`` is written to the captured stderr as Python would print it. ``timeout`` (s)
    needs the main thread (SIGALRM). Peak memory: what the call added to this process's resident
    size (the peak reset before it) over :data:`INLINE_BASE_MB`, since this process may hold
    far more than a fresh ``companion`` would before the call (a long pytest run); with
    ``own_peak`` (the worker, which holds only what the commands it ran imported) this process's
    own peak resident size during the call."""
    from companion.cli import main

    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", errors="strict", write_through=True)
    err = io.TextIOWrapper(err_b, encoding="utf-8", errors="backslashreplace", write_through=True)
    in_file = open(stdin, "rb") if stdin is not None else io.BytesIO(b"")
    inp = io.TextIOWrapper(in_file, encoding="utf-8")
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    timer = timeout is not None and threading_is_main()
    if timer:
        def alarm(signum, frame):
            raise _Timeout()
        old_handler = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    measured = _reset_peak()
    base = _vm_hwm_kb(field="VmRSS")  # this process already holds it (a long pytest run: 600 MB)
    t0 = time.perf_counter()
    timed_out = False
    try:
        os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = inp, out, err
        try:
            code = main([os.fsdecode(a) if isinstance(a, bytes) else a for a in argv])
        except SystemExit as exc:
            code = exc.code
            if code is None:
                code = 0
            elif not isinstance(code, int):
                print(code, file=err)
                code = 1
        except _Timeout:
            timed_out, code = True, -1
        except BaseException:  # noqa: BLE001 - everything that escapes main is the finding
            traceback.print_exc(file=err)
            code = 1
    finally:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)
        sys.stdin, sys.stdout, sys.stderr = saved[:3]
        os.chdir(saved[3])
        in_file.close()
    seconds = time.perf_counter() - t0
    peak = _vm_hwm_kb()
    for stream in (out, err):
        try:
            stream.flush()
        except (ValueError, UnicodeError):
            pass
    return Outcome(int(code), _trim(out_b.getvalue().decode("utf-8", "replace")),
                   _trim(err_b.getvalue().decode("utf-8", "replace")), seconds,
                   None if not (measured and peak and base) else
                   peak / 1024 if own_peak else INLINE_BASE_MB + max(0, peak - base) / 1024,
                   timed_out, "inline")


def threading_is_main() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("SDL_VIDEODRIVER", "dummy")
    env.setdefault("SDL_AUDIODRIVER", "dummy")
    env["PYTHONFAULTHANDLER"] = "1"  # a signal death prints where it happened (not a "Traceback")
    return env


def _limit(pid: int) -> None:
    try:
        resource.prlimit(pid, resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
        resource.prlimit(pid, resource.RLIMIT_CORE, (0, 0))
    except (OSError, ValueError):
        pass


#: A small process between the runner and the case's command. Linux's ``ru_maxrss`` of a child
#: counts the address space it was spawned from (recorded at exec: a child of a 230 MB pytest
#: "peaks" at 230 MB running ``pass``), so the command is spawned by this launcher (≈ 10 MB), which
#: reports the command's pid, then its wait status and ``ru_maxrss`` (KB), on the fd it is given.
_LAUNCHER = """
import json, os, resource, sys
fd, limit, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
pid = os.posix_spawn(argv[0], argv, os.environ)
os.write(fd, b"%d\\n" % pid)
_, status, usage = os.wait4(pid, 0)
os.write(fd, json.dumps({"status": status, "maxrss": usage.ru_maxrss}).encode() + b"\\n")
"""


def run_process(argv: list, cwd: Path, stdin: Path | None = None, timeout: float = TIMEOUT_S,
                command: list | None = None) -> Outcome:
    """The real CLI (``command`` + ``argv``, default :data:`CLI`) in a fresh process in ``cwd``,
    stdin from the file ``stdin`` (else /dev/null), stopped after ``timeout`` s (a hang: SIGABRT
    first, so faulthandler prints where it was, then SIGKILL to its process group). Its own
    peak resident set is ``ru_maxrss`` from ``os.wait4`` on it (unlike ``RUSAGE_CHILDREN``, that
    child's alone), taken by :data:`_LAUNCHER`."""
    cmd = list(command or CLI) + list(argv)
    report_r, report_w = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(stdin if stdin is not None else os.devnull, "rb") as inp:
        t0 = time.perf_counter()
        try:
            launcher = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, str(report_w), str(AS_LIMIT)] + cmd,
                                        cwd=cwd, stdin=inp, stdout=out, stderr=err, start_new_session=True,
                                        env=_child_env(), pass_fds=(report_w,))
        finally:
            os.close(report_w)
        deadline = t0 + timeout
        timed_out = False
        report = b""
        with os.fdopen(report_r, "rb", buffering=0) as rep:
            os.set_blocking(report_r, False)
            pause = 0.002
            while True:
                pid, status, _ = os.wait4(launcher.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() > deadline:
                    timed_out = True
                    report += rep.read() or b""
                    child = report.split(b"\n", 1)[0]
                    try:  # SIGABRT first: faulthandler prints where every thread was stuck
                        if child.isdigit():
                            os.kill(int(child), signal.SIGABRT)
                            time.sleep(1.0)
                        os.killpg(launcher.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    _, status, _ = os.wait4(launcher.pid, 0)
                    break
                time.sleep(pause)
                pause = min(0.05, pause * 1.5)
            os.set_blocking(report_r, True)
            report += rep.read() or b""
        launcher.returncode = os.waitstatus_to_exitcode(status)
        try:  # grandchildren (a pool the command started) go with the group
            os.killpg(launcher.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        seconds = time.perf_counter() - t0
        lines = report.decode().split("\n")
        child = json.loads(lines[1]) if len(lines) > 1 and lines[1].startswith("{") else None
        if child is not None:
            code, peak = os.waitstatus_to_exitcode(child["status"]), child["maxrss"] / 1024
        else:  # the launcher itself was killed (a hang), or could not spawn
            code, peak = (-signal.SIGKILL if timed_out else launcher.returncode), None
        out.seek(0)
        err.seek(0)
        return Outcome(code, _trim(out.read().decode("utf-8", "replace")), _trim(err.read().decode("utf-8", "replace")),
                       seconds, peak, timed_out, "process")


_WORKER_CODE = "import sys; sys.path.insert(0, {tests!r}); import fuzzing; fuzzing.worker_main()"


def worker_main() -> None:
    """The worker's loop: read one request a line ({"argv", "cwd", "stdin"}), run it with
    :func:`run_inline` (no timer: the parent kills a worker that takes too long), answer one
    line. Its own fds 0 and 1 are moved aside, so a command that writes to fd 1 directly cannot
    break the protocol."""
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    import companion.cli  # noqa: F401 - warm the imports the first case would otherwise pay for
    for line in proto_in:
        req = json.loads(line)
        argv = [base64.b64decode(a[2:]) if isinstance(a, str) and a.startswith("b:") else a[2:] for a in req["argv"]]
        res = run_inline(argv, Path(req["cwd"]), Path(req["stdin"]) if req["stdin"] else None, timeout=None,
                         own_peak=True)
        with open("/proc/self/status") as f:
            rss = next((int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:")), 0)
        proto_out.write(json.dumps({"code": res.code, "stdout": res.stdout, "stderr": res.stderr,
                                    "seconds": res.seconds, "peak_mb": res.peak_mb, "rss_mb": rss / 1024}).encode()
                        + b"\n")
        proto_out.flush()


class Worker:
    """A long-lived child that runs cases in-process (``worker_main``); replaced after a hang or a
    crash, after ``recycle`` cases, or when its resident set grows past ``max_rss_mb``."""

    def __init__(self, recycle: int = 250, max_rss_mb: float = 350) -> None:
        self.proc: subprocess.Popen | None = None
        self.recycle, self.max_rss_mb, self.count = recycle, max_rss_mb, 0
        self._buf = b""
        self._err = None

    def _start(self) -> None:
        # fd 2 of the worker: what reaches it past the captured sys.stderr (a faulthandler dump at a
        # crash, C libraries' own messages) is read back when the worker dies
        self._err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE.format(tests=str(Path(__file__).resolve().parent))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, cwd=ROOT,
            start_new_session=True, env=_child_env())
        _limit(self.proc.pid)
        self.count, self._buf = 0, b""

    def close(self) -> None:
        """Stop the worker (and anything it started)."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
            for s in (self.proc.stdin, self.proc.stdout, self._err):
                try:
                    s.close()
                except (OSError, AttributeError):
                    pass
            self.proc, self._err = None, None

    def _dying_words(self) -> str:
        """The last 8 KB the worker wrote to its fd 2."""
        if self._err is None:
            return ""
        self._err.seek(0, os.SEEK_END)
        size = self._err.tell()
        self._err.seek(max(0, size - 8192))
        return self._err.read().decode("utf-8", "replace")

    def run(self, argv: list, cwd: Path, stdin: Path | None = None, timeout: float = TIMEOUT_S) -> Outcome:
        """Run one case; a worker that does not answer within ``timeout`` s is killed (a hang), one
        that dies is a crash (its signal) and is replaced for the next case."""
        if self.proc is None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        req = {"argv": ["b:" + base64.b64encode(a).decode() if isinstance(a, bytes) else "s:" + a for a in argv],
               "cwd": str(cwd), "stdin": str(stdin) if stdin else None}
        t0 = time.perf_counter()
        try:
            self.proc.stdin.write(json.dumps(req).encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        fd = self.proc.stdout.fileno()
        deadline = t0 + timeout
        while b"\n" not in self._buf:
            left = deadline - time.perf_counter()
            if left <= 0:
                peak = _vm_hwm_kb(self.proc.pid)
                try:  # where it was stuck: faulthandler's dump of every thread
                    os.kill(self.proc.pid, signal.SIGABRT)
                    self.proc.wait(timeout=2)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass
                words = self._dying_words()
                self.close()
                return Outcome(-1, "", words, time.perf_counter() - t0, peak / 1024 if peak else None, True, "worker")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:  # the worker died with the case
                _, status, usage = os.wait4(self.proc.pid, 0)
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                code = self.proc.returncode
                words = self._dying_words()
                self.close()
                # (its ru_maxrss would count the runner it was spawned from: no peak for a death)
                return Outcome(code if code < 0 else -abs(code or 1), "",
                               f"the worker died (exit status {code})\n{words}",
                               time.perf_counter() - t0, None, False, "worker")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        res = json.loads(line)
        self.count += 1
        if self.count >= self.recycle or res["rss_mb"] > self.max_rss_mb:
            self.close()
        return Outcome(res["code"], res["stdout"], res["stderr"], res["seconds"], res["peak_mb"], False, "worker")


class Runner:
    """Runs cases: ``mode`` "inline", "worker" or "process" (a case's own ``where`` can force
    "process" or "inline"); keeps the folders of cases whose verdict is not good under ``keep``
    (else they are deleted)."""

    def __init__(self, work: Path, keep: Path | None = None, timeout: float = TIMEOUT_S) -> None:
        self.work, self.keep, self.timeout = Path(work), keep, timeout
        self.work.mkdir(parents=True, exist_ok=True)
        self.worker = Worker()

    def close(self) -> None:
        self.worker.close()

    def mode_for(self, case: Case, mode: str) -> str:
        """How ``case`` runs when ``mode`` is asked for (see :attr:`Case.where`)."""
        if case.where == "process":
            return "process"
        if case.where == "isolated" and mode == "inline":
            return "worker"
        if case.where == "inline" and mode == "process":
            return "worker"
        return mode

    def run(self, case: Case, mode: str = "worker") -> tuple[str, Outcome, Path | None]:
        """(verdict, outcome, the kept folder or None) of one case."""
        mode = self.mode_for(case, mode)
        folder = materialize(case, self.work)
        argv = concrete_argv(case, folder)
        stdin = _stdin_path(case, folder)
        if mode == "process":
            out = run_process(argv, folder, stdin, self.timeout)
        elif mode == "worker":
            out = self.worker.run(argv, folder, stdin, self.timeout)
        else:
            out = run_inline(argv, folder, stdin, self.timeout)
        if case.check is not None:
            out.problem = case.check(folder, out.stdout)
        v = verdict(case, out)
        kept = None
        if v not in GOOD and self.keep is not None:
            self.keep.mkdir(parents=True, exist_ok=True)
            kept = self.keep / folder.name
            shutil.rmtree(kept, ignore_errors=True)
            os.rename(folder, kept)
        else:
            shutil.rmtree(folder, ignore_errors=True)
        return v, out, kept
