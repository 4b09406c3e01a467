"""Reading an enrolment file (DECK.npz, DICE.npz) against its schema before any array is loaded.

``numpy.load`` on an .npz reads whichever members it is asked for, whole: a valid deck plus a
2 GiB all-zero member (2 MB compressed on disk) used 2.1 GB, and 1 GiB of all-zero templates ran
32 s at 6.2 GB (issue #14 item 8). So the file is checked in this order, and refused at the first
rule it breaks, with an error that names the file and the field:

1. it is a regular file no larger than the schema's largest possible file (nothing else is opened:
   a named pipe would block, a device never ends);
2. its ZIP end-of-central-directory record (PKWARE APPNOTE 6.3.10 §4.3.16) lists at most 64
   members and a central directory of at most 64 KiB, before
   :class:`zipfile.ZipFile` builds an entry per member (a crafted 60 MB directory would be
   millions of entries);
3. every member is ``<field>.npy`` of a known field, once, stored or deflated, not encrypted;
4. every member's ``.npy`` header alone (``numpy.lib.format.read_magic`` and
   ``read_array_header_1_0`` / ``_2_0``, the reader ``numpy.load`` itself uses, on the member's
   stream) gives a dtype of the field's kind (never ``object``: nothing is unpickled), the field's
   number of dimensions, sizes within the schema's bounds and agreeing between fields, and a data
   size that is exactly what the member declares uncompressed;
5. only then are the arrays read (``numpy.lib.format.read_array(..., allow_pickle=False)``), each
   no larger than its header said; the ZIP CRC is checked as the last byte is read.

Value checks (finite, ranges, unique names) are the caller's, on arrays of known shape and dtype:
:func:`check_names` and :func:`check_finite` help.

Source: NumPy "NEP 1 — A simple file format for NumPy arrays" (the .npy header), PKWARE APPNOTE.
"""

from __future__ import annotations

import os
import stat
import struct
import unicodedata
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from numpy.lib import format as npy

#: Largest ``.npy`` header read (numpy's own default limit for ``np.load``).
_MAX_HEADER = 10_000
#: Largest ZIP central directory accepted: a few hundred bytes per member of a real file.
_MAX_CENTRAL_DIRECTORY = 64 << 10
#: Most members counted before :class:`zipfile.ZipFile` lists them (a schema has a dozen fields;
#: the names are then checked one by one).
_MAX_MEMBERS = 64
#: ZIP end-of-central-directory record: signature, then (APPNOTE §4.3.16) disk numbers, entries on
#: this disk, total entries, directory size, directory offset, comment length.
_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIG = b"PK\x05\x06"

#: dtype kinds per field kind (``numpy.dtype.kind``).
KINDS = {"str": "U", "int": "iu", "float": "f", "bool": "b"}
_WORDS = {"U": "text", "S": "bytes", "i": "integers", "u": "integers", "f": "floating-point numbers",
          "c": "complex numbers", "b": "booleans", "M": "dates", "m": "time spans", "V": "raw bytes"}


@dataclass(frozen=True)
class Field:
    """One array of an .npz schema.

    kind: "str", "int", "float" or "bool" (:data:`KINDS`); an array of another kind is refused.
    shape: one entry per dimension: an int is an exact size, a str names a size shared by fields
        (bounded by the schema's ``dims``), e.g. ``("M", 3870)``; ``()`` is a 0-d value.
    required: a file without it is refused (else it may be left out).
    itemsize: the exact bytes per element (4 for float32), or None for any of the kind.
    max_chars: for "str": the longest string the field may hold, characters.
    """

    kind: str
    shape: tuple = ()
    required: bool = True
    itemsize: int | None = None
    max_chars: int = 0

    def describe(self) -> str:
        """The field's type in words, for messages: ``"(M, 3870) float32"``."""
        if not self.shape:
            dims = "0-d"
        else:
            dims = "(" + ", ".join(str(d) for d in self.shape) + ("," if len(self.shape) == 1 else "") + ")"
        name = {("float", 4): "float32", ("float", 8): "float64"}.get((self.kind, self.itemsize), self.kind)
        return f"{dims} {name}"


ErrorFactory = Callable[[str | None, str], Exception]


def _check_directory(fh, size: int, max_members: int, what: str, hint: str, error: ErrorFactory) -> None:
    """Step 2: the end-of-central-directory record, read from the file's tail."""
    tail_len = min(size, _EOCD.size + 0xFFFF)  # the record, then a comment of at most 64 KiB
    fh.seek(size - tail_len)
    tail = fh.read(tail_len)
    at = tail.rfind(_EOCD_SIG)
    if at < 0 or len(tail) - at < _EOCD.size:
        raise error(None, f"not a {what} file (not an .npz archive){hint}")
    _, _, _, _, entries, cd_size, _, _ = _EOCD.unpack_from(tail, at)
    if entries > max_members:
        raise error(None, f"holds {entries} members; a {what} file has one per field, at most {max_members}")
    if cd_size > _MAX_CENTRAL_DIRECTORY:
        raise error(None, f"its ZIP directory is {cd_size} bytes; a {what} file's is a few hundred")


def _member_header(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, error: ErrorFactory
                   ) -> tuple[tuple[int, ...], np.dtype, int]:
    """Step 4's reading: ``(shape, dtype, header bytes)`` of one member, from its header alone."""
    version = None
    try:
        with zf.open(info) as s:
            version = npy.read_magic(s)
            if version in ((1, 0), (2, 0)):
                read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
                shape, _, dtype = read(s, max_header_size=_MAX_HEADER)
                return tuple(int(n) for n in shape), np.dtype(dtype), s.tell()
    except (ValueError, TypeError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError, OSError) as exc:
        raise error(name, f"not a NumPy array ({type(exc).__name__}: {exc})") from None
    raise error(name, f"unsupported .npy format version {version[0]}.{version[1]} (numpy.savez writes 1.0)")


def read_npz(path: Path | str, fields: dict[str, Field], dims: dict[str, int], error: ErrorFactory,
             what: str, hint: str = "", identity: tuple[str, str] | None = None) -> dict[str, np.ndarray]:
    """The arrays of an .npz file that passes ``fields`` (module doc, steps 1–5).

    Args:
        path: the .npz file.
        fields: field name → :class:`Field`; members are ``<name>.npy``.
        dims: each size name used in the fields' shapes → its largest value (each ≥ 1; a field
            may also be empty along it).
        error: ``error(field or None, reason)`` → the exception to raise; it should name the file.
        what: the kind of file, for messages ("deck", "dice").
        hint: appended to "not a ... file" messages (how to make a good one).
        identity: ``(field, value)``: a 0-d str field naming the kind of file (``("format",
            "companion-deck")``), read first when present, so another kind of file (a dice file
            given as a deck) is refused as such rather than for its first unknown member.

    Returns:
        field name → array (only the fields present), each of the kind, shape and size checked.

    Raises:
        whatever ``error`` returns, for a file that breaks any rule; never anything else for a bad
        file (OSError on the way, ZIP corruption, a bad header, a CRC mismatch all become it).
    """
    p = Path(path)
    max_file = (sum(_max_nbytes(f, dims) for f in fields.values()) + len(fields) * (_MAX_HEADER + 1024)
                + _MAX_CENTRAL_DIRECTORY)
    try:
        # O_NONBLOCK: a named pipe's open() would wait for a writer; fstat then refuses it.
        fh = open(p, "rb", opener=lambda f, flags: os.open(f, flags | os.O_NONBLOCK))
    except FileNotFoundError:
        raise error(None, f"{what} file not found") from None
    except IsADirectoryError:
        raise error(None, f"is a directory, not a {what} file") from None
    except OSError as exc:
        raise error(None, f"cannot read: {exc.strerror or exc}") from None
    with fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise error(None, f"not a regular file (a named pipe, device or socket), not a {what} file")
        if st.st_size > max_file:
            raise error(None, f"file is {st.st_size / 1e6:.1f} MB; a {what} file is at most {max_file / 1e6:.1f} MB")
        try:
            _check_directory(fh, st.st_size, _MAX_MEMBERS, what, hint, error)
            fh.seek(0)
            with zipfile.ZipFile(fh) as zf:
                infos, unknown = _members(zf, fields, error)
                if identity is not None and identity[0] in infos:
                    name, want = identity
                    shape, dtype, _ = _member_header(zf, infos[name], name, error)
                    _check_header(name, fields[name], shape, dtype, dims, {}, error)
                    got = str(_read(zf, infos[name], name, error))
                    if got != want:
                        # the file as a whole is of another kind: no field of it is "wrong"
                        raise error(None, f"not a {what} file ({name} {got!r}, expected {want!r}){hint}")
                if unknown:
                    raise error(unknown, f"unknown member {unknown + '.npy'!r} (a {what} file holds "
                                         f"{', '.join(n + '.npy' for n in fields)}){hint}")
                sizes: dict[str, tuple[int, str]] = {}
                for name, info in infos.items():
                    shape, dtype, offset = _member_header(zf, info, name, error)
                    _check_header(name, fields[name], shape, dtype, dims, sizes, error)
                    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                    if info.file_size != offset + nbytes:
                        raise error(name, f"the archive declares {info.file_size} bytes, its array header "
                                          f"{offset + nbytes}: a corrupt or doctored member")
                for name, f in fields.items():
                    if f.required and name not in infos:
                        needed = ", ".join(n for n, g in fields.items() if g.required)
                        raise error(name, f"missing (a {what} file holds {needed})")
                return {name: _read(zf, info, name, error) for name, info in infos.items()}
        except zipfile.BadZipFile as exc:
            raise error(None, f"not a readable {what} file (corrupt .npz archive: {exc}){hint}") from None
        except (OSError, EOFError, zlib.error, NotImplementedError, RuntimeError) as exc:
            raise error(None, f"not a readable {what} file ({type(exc).__name__}: {exc})") from None


def _max_nbytes(f: Field, dims: dict[str, int]) -> int:
    n = 1
    for d in f.shape:
        n *= d if isinstance(d, int) else dims[d]
    item = f.itemsize or {"str": 4 * max(1, f.max_chars), "int": 8, "float": 8, "bool": 1}[f.kind]
    return n * item


def _members(zf: zipfile.ZipFile, fields: dict[str, Field], error: ErrorFactory
             ) -> tuple[dict[str, zipfile.ZipInfo], str | None]:
    """Step 3: field name → its member, each once, and the first member that is no known field's
    (its name without ``.npy``), or None."""
    out: dict[str, zipfile.ZipInfo] = {}
    unknown = None
    for info in zf.infolist():
        name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
        if name not in fields:
            unknown = unknown or name
            continue
        if name in out:
            raise error(name, "stored twice in the archive")
        if info.flag_bits & 0x1:
            raise error(name, "encrypted member")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise error(name, f"compressed with ZIP method {info.compress_type}; numpy.savez stores or deflates")
        out[name] = info
    return out, unknown


def _check_header(name: str, f: Field, shape: tuple[int, ...], dtype: np.dtype, dims: dict[str, int],
                  sizes: dict[str, tuple[int, str]], error: ErrorFactory) -> None:
    """Step 4's rules for one field."""
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise error(name, f"holds Python objects or records ({dtype}), never loaded; expected {f.describe()}")
    if dtype.kind not in KINDS[f.kind] or (f.itemsize is not None and dtype.itemsize != f.itemsize):
        raise error(name, f"holds {_WORDS.get(dtype.kind, 'data')} ({dtype.str}), expected {f.describe()}")
    if f.kind == "str" and dtype.itemsize > 4 * f.max_chars:
        raise error(name, f"holds strings of up to {dtype.itemsize // 4} characters, at most {f.max_chars}")
    if len(shape) != len(f.shape):
        raise error(name, f"has shape {shape}, expected {f.describe()}")
    for n, want in zip(shape, f.shape):
        if isinstance(want, int):
            if n != want:
                raise error(name, f"has shape {shape}, expected {f.describe()}")
            continue
        if n > dims[want]:
            raise error(name, f"has shape {shape}: {n} along {want}, at most {dims[want]}")
        if want in sizes and sizes[want][0] != n:
            other, m = sizes[want][1], sizes[want][0]
            raise error(name, f"has shape {shape} but {other!r} has {m} along {want}: they must agree")
        sizes.setdefault(want, (n, name))


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, error: ErrorFactory) -> np.ndarray:
    """Step 5: the member's array; its size was fixed by the checked header."""
    try:
        with zf.open(info) as s:
            arr = npy.read_array(s, allow_pickle=False, max_header_size=_MAX_HEADER)
            s.read(1)  # at the end: makes zipfile check the CRC if read_array stopped just short
    except zipfile.BadZipFile as exc:
        raise error(name, f"corrupt data ({exc})") from None
    except (ValueError, EOFError, zlib.error, OSError) as exc:
        raise error(name, f"corrupt data ({type(exc).__name__}: {exc})") from None
    return arr


def check_finite(name: str, arr: np.ndarray, error: ErrorFactory) -> None:
    """Raise ``error(name, ...)`` unless every element is finite (no NaN, no ±inf)."""
    if arr.size and not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise error(name, f"holds {bad} value(s) that are not finite numbers (NaN or infinity)")


def check_names(name: str, values, max_chars: int, error: ErrorFactory, reserved: str = "") -> tuple[str, ...]:
    """Names (labels, faces) as a tuple of str, refused unless each is non-empty, has no blank at
    either end, no control or unpaired surrogate character (it could not be printed), is at most
    ``max_chars`` long, is not ``reserved``, and all are distinct.

    Args:
        name: the field, for messages.
        values: the names (a 1-d str array or a sequence of str).
        max_chars: the longest name, characters.
        error: as :func:`read_npz`.
        reserved: a name that may not be used ("" for none).

    Returns:
        the names, in order.
    """
    out = tuple(str(v) for v in np.asarray(values).reshape(-1))
    seen: set[str] = set()
    for v in out:
        why = name_problem(v, max_chars)
        if why:
            raise error(name, f"{v!r}: {why}")
        if reserved and v == reserved:
            raise error(name, f"{v!r} is reserved for what matches nothing")
        if v in seen:
            raise error(name, f"{v!r} appears twice; names must be distinct")
        seen.add(v)
    return out


def name_problem(v: str, max_chars: int) -> str:
    """Why ``v`` cannot be a label or face name ("" if it can): empty, blank at an end, longer than
    ``max_chars``, or holding a control character or an unpaired surrogate (a file name that is
    not UTF-8 gives those, and no terminal can print them)."""
    if not v:
        return "empty name"
    if v != v.strip():
        return "blank at the start or end of the name"
    if len(v) > max_chars:
        return f"name of {len(v)} characters, at most {max_chars}"
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in v):
        return "name holds a control character or an unpaired surrogate (not printable text)"
    return ""


__all__ = ["KINDS", "Field", "check_finite", "check_names", "name_problem", "read_npz"]
