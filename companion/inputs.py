"""The one way the companion reads a text file a user names: score records, replay fixtures'
``game.json``, panel scripts, the pinout (issue #14, "One input layer").

Every read here:

- takes **regular files only**. The path is checked with ``os.stat`` before it is opened, so a
  directory, a named pipe (FIFO), a device such as ``/dev/zero`` or ``/dev/urandom`` or a socket
  is refused by name without being read; the file is then opened with ``O_NONBLOCK`` (opening a
  FIFO for reading blocks until a writer comes, POSIX open(2); swapped in after the check, it
  still cannot hang) and checked again with ``fstat``;
- reads at most the kind's byte cap + 1 bytes (:class:`InputKind`), so an endless or huge
  input is refused after a bounded read;
- decodes strict UTF-8 (a UTF-8 byte-order mark is dropped, as RFC 8259 §8.1 allows); a UTF-16 or
  UTF-32 file, or one in Latin-1/Windows-1252, gets a named error saying so;
- raises :class:`InputError` naming the path (and, for JSON, the field).

Standard library only and no import of the app or devices, so ``companion score`` starts fast and
both the commands (``companion.app``) and the devices (panel scripts, pinout) can use it.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from dataclasses import dataclass
from typing import Any

from companion.rules.errors import MalformedGame
from companion.rules.records import MAX_RECORD_CHARS, MAX_RECORD_DEPTH, parse_json_strictly

#: UTF-8 takes at most 4 bytes a character (RFC 3629 §3), so a file of more than 4 × N bytes
#: holds more than N characters whatever it says.
UTF8_MAX_BYTES_PER_CHAR = 4


@dataclass(frozen=True)
class InputKind:
    """What a file is and how long it may be.

    Attributes:
        what: the name a message uses ("score record", "panel script").
        max_chars: the most characters taken; the read stops at ``max_bytes`` + 1 bytes.
        typical: how long such a file usually is, for the too-long message.
        max_depth: for JSON, the deepest nesting of lists and objects taken.
        deepest: for JSON, how deep such a file nests, for the too-deep message.
    """

    what: str
    max_chars: int
    typical: str
    max_depth: int = MAX_RECORD_DEPTH
    deepest: str = "at most 5"

    @property
    def max_bytes(self) -> int:
        """The most bytes read, in bytes: ``max_chars`` characters of UTF-8 at their longest."""
        return UTF8_MAX_BYTES_PER_CHAR * self.max_chars

    @property
    def article(self) -> str:
        """``what`` with its article ("a score record"), for messages."""
        return f"a {self.what}"


#: A ``companion score`` record: a finished 5-player Sushi Go! game is about 4 000 characters.
SCORE_RECORD = InputKind("game record", MAX_RECORD_CHARS, "a few thousand")
#: A replay fixture's ``game.json``: the record and its scores plus one line per frame
#: (the 4-player fixture is about 10 000 characters); the record's cap covers it.
FIXTURE_GAME = InputKind(
    "fixture game.json", MAX_RECORD_CHARS, "a few thousand to a few tens of thousands", deepest="at most 6"
)
#: A panel script (``--panel script:FILE``): about 35 characters an event, so the cap is some
#: 28 000 button presses, hours of play.
PANEL_SCRIPT = InputKind("panel script", MAX_RECORD_CHARS, "a few dozen events", deepest="2 (a list of objects)")
#: The pinout TOML (``doctor --pinout``, ``$COMPANION_PINOUT``): the shipped one is about 2 000
#: characters.
PINOUT = InputKind("pinout file", 100_000, "a few thousand")


class InputError(ValueError):
    """A file that cannot be used as the input it was given as.

    Attributes:
        path: the path as given (``<stdin>`` for standard input).
        field: for JSON, the field path (``rounds[0].Ann``); "" for the whole file.
        problem: what is wrong, e.g. "is a named pipe (FIFO), not a regular file".
        rule: a short stable identifier for tests and logs: ``missing``, ``not-a-file``,
            ``unreadable``, ``too-long``, ``not-utf8``, ``bad-path``, ``json``.
    """

    def __init__(self, path: str, problem: str, *, rule: str, field: str = "") -> None:
        self.path = path
        self.field = field
        self.problem = problem
        self.rule = rule
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.path}: {self.field}: {self.problem}" if self.field else f"{self.path}: {self.problem}"


def file_type_problem(mode: int) -> str | None:
    """Why a file of ``st_mode`` ``mode`` is not a regular file ("is a folder, not a file"...), or
    None for a regular file. Source: POSIX <sys/stat.h> file type macros (``stat.S_IS*``)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a regular file; it is not read, a pipe can block forever"
    if stat.S_ISCHR(mode):
        return "is a character device, not a regular file; it is not read"
    if stat.S_ISBLK(mode):
        return "is a block device, not a regular file; it is not read"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file; it is not read"
    return "is not a regular file; it is not read"


def _os_problem(exc: OSError) -> tuple[str, str]:
    """(rule, words) for an OSError from stat or open."""
    if exc.errno == errno.ENOENT:
        return "missing", "no such file"
    if exc.errno == errno.ENOTDIR:
        return "missing", "no such file (a part of the path before it is a file, not a folder)"
    if exc.errno == errno.ELOOP:
        return "unreadable", "cannot be read: a loop of symbolic links"
    if exc.errno == errno.EACCES:
        return "unreadable", "cannot be read: permission denied"
    if exc.errno == errno.ENAMETOOLONG:
        return "bad-path", "the path is too long for the file system"
    return "unreadable", f"cannot be read: {exc.strerror or exc}"


def check_regular_file(path: str | os.PathLike[str]) -> os.stat_result:
    """``os.stat(path)`` (following symbolic links) if ``path`` is a regular file.

    Raises:
        InputError: a NUL in the path (``bad-path``); no such file (``missing``); a loop of
            symbolic links or no permission (``unreadable``); a folder, FIFO, device or socket
            (``not-a-file``).
    """
    where, shown = os.fspath(path), display_path(path)
    if "\0" in where:
        raise InputError(shown, "the path holds a NUL character, which no file name can", rule="bad-path")
    try:
        st = os.stat(where)
    except OSError as exc:
        rule, words = _os_problem(exc)
        raise InputError(shown, words, rule=rule) from None
    except ValueError as exc:  # a path os.stat cannot even pass to the system
        raise InputError(shown, f"not a usable path ({exc})", rule="bad-path") from None
    problem = file_type_problem(st.st_mode)
    if problem is not None:
        raise InputError(shown, problem, rule="not-a-file")
    return st


def _too_long(where: str, kind: InputKind) -> InputError:
    return InputError(
        where, f"too long: more than {kind.max_chars:,} characters ({kind.article} is {kind.typical})", rule="too-long"
    )


def read_bytes(path: str | os.PathLike[str], kind: InputKind) -> bytes:
    """The bytes of the regular file ``path``, reading at most ``kind.max_bytes`` + 1 bytes.

    Raises:
        InputError: see :func:`check_regular_file`; ``too-long`` for a file over
            ``kind.max_bytes`` (by its size, or by what could be read: /proc files say 0).
    """
    where, shown = os.fspath(path), display_path(path)
    st = check_regular_file(where)
    if st.st_size > kind.max_bytes:
        raise _too_long(shown, kind)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(where, flags)
    except OSError as exc:
        rule, words = _os_problem(exc)
        raise InputError(shown, words, rule=rule) from None
    try:
        # the path may have been swapped between stat and open: judge what was opened
        problem = file_type_problem(os.fstat(fd).st_mode)
        if problem is not None:
            raise InputError(shown, problem, rule="not-a-file")
        chunks, left = [], kind.max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise InputError(shown, f"cannot be read: {exc.strerror or exc}", rule="unreadable") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > kind.max_bytes:
        raise _too_long(shown, kind)
    return data


_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
)


def _encoding_guess(data: bytes) -> str:
    """What a file that is not UTF-8 probably is, for the message (never used to decode it)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return f"it starts with a {name} byte-order mark"
    head = data[:4096]
    if len(head) >= 4 and head.count(0) * 4 >= len(head):
        # text in UTF-16 has a NUL in about every other byte for Latin letters
        even, odd = head[0::2].count(0), head[1::2].count(0)
        return f"it looks like UTF-16 ({'big' if even > odd else 'little'}-endian, no byte-order mark)"
    if any(b >= 0x80 for b in head) and head.count(0) == 0:
        return "it may be Latin-1 or Windows-1252"
    return "it may be a binary file"


def decode_utf8(data: bytes, where: str) -> str:
    """``data`` as strict UTF-8 text, a leading UTF-8 byte-order mark dropped (RFC 8259 §8.1 allows
    a reader to ignore it).

    Raises:
        InputError: ``not-utf8``, naming the first bad byte's offset and what the file probably
            is (UTF-16, UTF-32, Latin-1/Windows-1252, binary); also for a NUL byte (valid UTF-8,
            but no JSON or TOML text holds one: UTF-16 of ASCII text is mostly NULs).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InputError(
            where,
            f"not UTF-8 text: byte 0x{data[exc.start]:02X} at offset {exc.start} ({exc.reason}); "
            f"{_encoding_guess(data)}. Save it as UTF-8",
            rule="not-utf8",
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        # valid UTF-8, but no text file the companion reads holds a NUL (JSON and TOML forbid raw
        # control characters): it is UTF-16 of ASCII text, or binary
        raise InputError(
            where, f"not UTF-8 text: a NUL byte at offset {data.find(0)}; {_encoding_guess(data)}. Save it as UTF-8",
            rule="not-utf8",
        )
    return text


def read_text(path: str | os.PathLike[str], kind: InputKind) -> str:
    """The text of the regular file ``path`` (``"-"`` is not special here: see :func:`read_stdin`).

    Returns:
        The text, at most ``kind.max_chars`` characters.

    Raises:
        InputError: naming the path: ``bad-path``, ``missing``, ``unreadable``, ``not-a-file``,
            ``too-long`` or ``not-utf8`` (see :func:`read_bytes`, :func:`decode_utf8`).
    """
    shown = display_path(path)
    text = decode_utf8(read_bytes(path, kind), shown)
    if len(text) > kind.max_chars:
        raise _too_long(shown, kind)
    return text


def read_stdin(kind: InputKind, stream: Any = None) -> str:
    """Standard input's text with the same cap and decoding as a file (``-`` on the command line).

    ``stream`` defaults to ``sys.stdin``; its binary ``buffer`` is read (at most ``kind.max_bytes``
    + 1 bytes) and decoded as strict UTF-8; a stream without one (a test's ``io.StringIO``) is
    read as text, at most ``kind.max_chars`` + 1 characters. A pipe or terminal is read until it
    ends, as any filter does.

    Raises:
        InputError: ``too-long``, ``not-utf8`` or ``unreadable``, with the path ``<stdin>``.
    """
    where = "<stdin>"
    stream = sys.stdin if stream is None else stream
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            text = stream.read(kind.max_chars + 1)
        else:
            chunks, left = [], kind.max_bytes + 1
            while left > 0:
                chunk = buffer.read(min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
            data = b"".join(chunks)
            if len(data) > kind.max_bytes:
                raise _too_long(where, kind)
            text = decode_utf8(data, where)
    except OSError as exc:
        raise InputError(where, f"cannot be read: {exc.strerror or exc}", rule="unreadable") from None
    except UnicodeDecodeError as exc:  # a text stream decoding as it reads
        raise InputError(where, f"not UTF-8 text ({exc.reason})", rule="not-utf8") from None
    if len(text) > kind.max_chars:
        raise _too_long(where, kind)
    return text


def parse_json_text(text: str, where: str, kind: InputKind) -> Any:
    """Parse ``text`` read from ``where`` as strict JSON
    (:func:`companion.rules.records.parse_json_strictly` with ``kind``'s limits).

    Raises:
        InputError: ``json``, naming ``where``, the field (a duplicate key's object, a lone
            surrogate's string) and the problem.
    """
    try:
        return parse_json_strictly(
            text, what=kind.article, max_chars=kind.max_chars, max_depth=kind.max_depth,
            typical=kind.typical, deepest=kind.deepest,
        )
    except MalformedGame as exc:
        raise InputError(where, exc.problem, rule="json", field=exc.path) from None


def read_json(path: str | os.PathLike[str], kind: InputKind) -> Any:
    """The strict-JSON value in the regular file ``path`` (:func:`read_text` then
    :func:`parse_json_text`).

    Raises:
        InputError: any refusal of either, naming the path (and the field for JSON).
    """
    return parse_json_text(read_text(path, kind), display_path(path), kind)


def display_path(path: str | os.PathLike[str]) -> str:
    """The path as a message shows it: as given, NULs and other controls escaped."""
    text = os.fspath(path)
    return text if text.isprintable() else repr(text)


__all__ = [
    "FIXTURE_GAME",
    "InputError",
    "InputKind",
    "PANEL_SCRIPT",
    "PINOUT",
    "SCORE_RECORD",
    "check_regular_file",
    "decode_utf8",
    "display_path",
    "file_type_problem",
    "parse_json_text",
    "read_bytes",
    "read_json",
    "read_stdin",
    "read_text",
]
