"""Reading image files for the vision commands, with errors that name the file and a bounded size.

``cv2.imread`` returns ``None`` for every kind of failure (missing file, directory, truncated or
non-image data, unsupported format); :func:`read_image` turns those into one named exception
whose message says which file and why, so the CLI can report it and carry on with the others.

Bounded memory (issues #7 and #14)
----------------------------------
A PNG of 30000 × 30000 zero pixels is 0.9 MB on disk and 2.7 GB once decoded as BGR; the readers
then made several copies of it (5 – 9 GB measured, and a segmentation fault inside
``cv2.warpPerspective``). OpenCV's Python API has no header-only read, so the image's width and
height are taken from the file's own header with the standard library (:func:`header_size`:
PNG ``IHDR``, JPEG ``SOFn``, BMP ``BITMAPINFOHEADER``, TIFF first IFD, WebP ``VP8``/``VP8L``/
``VP8X``, PNM/PAM/PFM, GIF logical screen) and checked against :data:`MAX_PIXELS` *before* anything
is decoded; a file whose size the header does not give is refused, not decoded to find out.

Every reader then works on a copy no larger than it needs (:func:`working_copy`,
:func:`read_working`): a JPEG is decoded directly at 1/2, 1/4 or 1/8 scale
(``cv2.IMREAD_REDUCED_COLOR_*``, libjpeg's DCT scaling, which never builds the full-size image)
when that still leaves the working size; other formats are decoded whole (at most
``MAX_PIXELS``) and reduced with ``INTER_AREA``. Readers report coordinates in the original
image's px (:func:`to_original_px`).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np

#: File name endings the enrolment treats as images (other files in a label folder are ignored).
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm", ".pnm"})

#: Largest image (width × height, px) any reader decodes. Cameras give: a Raspberry Pi HQ camera
#: 12.3 MP (4056 × 3040), phones 48 MP (8000 × 6000) and 50 MP (8160 × 6120 = 49.9 MP) at full
#: resolution; all pass. Decoded as 8-bit BGR, 50 MP is 150 MB (OpenCV's PNG decoder peaks at
#: about twice that: 48 MP measured at 0.33 GB), which a 1 GB Pi can hold beside the program;
#: 12000 × 12000 (144 MP, 432 MB) or 30000 × 30000 (900 MP, 2.7 GB) cannot.
MAX_PIXELS = 50_000_000

#: An accepted image's file may hold at most this many bytes per pixel (16-bit RGBA, uncompressed)
#: plus :data:`_FILE_SLACK` of metadata; anything bigger is not just that image, and would be read
#: into memory whole before decoding.
_MAX_BYTES_PER_PIXEL = 8
_FILE_SLACK = 16 << 20

#: Formats whose header :func:`header_size` reads; other files are refused before decoding.
HEADER_FORMATS = "PNG, JPEG, BMP, TIFF, WebP, PNM/PAM/PFM, GIF"


class ImageReadError(OSError):
    """An image file is missing, unreadable or not a decodable image. ``str()`` names the file."""

    def __init__(self, path: Path | str, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __str__(self) -> str:  # OSError's default str() would prefix an errno
        return f"{self.path}: {self.reason}"


class ImageTooLargeError(ImageReadError):
    """An image whose header gives more than :data:`MAX_PIXELS` pixels; refused before decoding.

    Attributes:
        width, height: the size the header gives, px.
        budget: the limit it broke, px (``MAX_PIXELS``).
    """

    def __init__(self, path: Path | str, width: int, height: int, budget: int = MAX_PIXELS):
        self.width, self.height, self.budget = width, height, budget
        super().__init__(
            path,
            f"image is {width}×{height} ({width * height / 1e6:.1f} MP), more than the {budget / 1e6:g} MP"
            " an image may have (a 48 MP phone photo fits); scale it down first",
        )


# ------------------------------------------------------------------ header parsing (stdlib only)
class _Truncated(ValueError):
    """The header ends before it gives the size."""


def _read_exact(fh: BinaryIO, n: int) -> bytes:
    b = fh.read(n)
    if len(b) != n:
        raise _Truncated
    return b


def _png_size(fh: BinaryIO, head: bytes) -> tuple[int, int]:
    # PNG spec §11.2.2: the first chunk is IHDR: width, height (4-byte big-endian each).
    if len(head) < 24 or head[12:16] != b"IHDR":
        raise _Truncated
    return struct.unpack(">II", head[16:24])


#: SOFn markers (ITU T.81 table B.1): C0–CF except DHT (C4), JPG (C8) and DAC (CC).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(fh: BinaryIO, head: bytes) -> tuple[int, int] | None:
    # ITU T.81 §B.2: segments "FF xx [len:2] ..." up to the frame header SOFn:
    # precision (1), lines Y (2), samples per line X (2). APPn (EXIF, thumbnails) are skipped by length.
    fh.seek(2)
    while True:
        b = _read_exact(fh, 1)
        if b != b"\xff":
            return None  # not at a marker: corrupt
        marker = _read_exact(fh, 1)[0]
        while marker == 0xFF:  # fill bytes
            marker = _read_exact(fh, 1)[0]
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:
            continue  # TEM / RSTn: no length
        if marker in (0xD9, 0xDA):
            return None  # end of image or start of scan before any frame header
        (length,) = struct.unpack(">H", _read_exact(fh, 2))
        if length < 2:
            return None
        if marker in _SOF:
            _, h, w = struct.unpack(">BHH", _read_exact(fh, 5))
            return (w, h) if h > 0 else None  # height 0: given later by a DNL marker
        fh.seek(length - 2, 1)


def _bmp_size(fh: BinaryIO, head: bytes) -> tuple[int, int]:
    # BITMAPFILEHEADER (14 bytes), then the DIB header; its first field is its own size. 12 is the
    # OS/2 BITMAPCOREHEADER (16-bit sizes), larger ones start like BITMAPINFOHEADER (signed 32-bit,
    # height negative for top-down rows).
    if len(head) < 26:
        raise _Truncated
    (dib,) = struct.unpack("<I", head[14:18])
    if dib == 12:
        return struct.unpack("<HH", head[18:22])
    w, h = struct.unpack("<ii", head[18:26])
    return abs(w), abs(h)


def _tiff_size(fh: BinaryIO, head: bytes) -> tuple[int, int] | None:
    # TIFF 6.0 §2 (and BigTIFF): byte order, magic 42 (43 = BigTIFF), offset of the first IFD; tags
    # 256 ImageWidth and 257 ImageLength are SHORT or LONG (LONG8 in BigTIFF) held in the entry.
    # OpenCV decodes the first page only, so the first IFD is the one that counts.
    e = "<" if head[:2] == b"II" else ">"
    (magic,) = struct.unpack(e + "H", head[2:4])
    big = magic == 43
    if big:
        fh.seek(8)
        (ifd,) = struct.unpack(e + "Q", _read_exact(fh, 8))
    else:
        (ifd,) = struct.unpack(e + "I", head[4:8])
    fh.seek(ifd)
    (count,) = struct.unpack(e + ("Q" if big else "H"), _read_exact(fh, 8 if big else 2))
    size: dict[int, int] = {}
    entry = 20 if big else 12
    for _ in range(min(count, 4096)):
        raw = _read_exact(fh, entry)
        tag, typ = struct.unpack(e + "HH", raw[:4])
        if tag not in (256, 257):
            continue
        value = raw[12:] if big else raw[8:]
        fmt = {3: "H", 4: "I", 16: "Q"}.get(typ)
        if fmt is None:
            return None
        (size[tag],) = struct.unpack(e + fmt, value[:struct.calcsize(fmt)])
    if 256 not in size or 257 not in size:
        return None
    return size[256], size[257]


def _webp_size(fh: BinaryIO, head: bytes) -> tuple[int, int] | None:
    # RIFF container (Google, "WebP Container Specification"): the first chunk after "WEBP" is
    # VP8 (lossy, RFC 6386 §9.1: 14-bit sizes after the start code 9d 01 2a), VP8L (lossless:
    # signature 0x2f, then 14-bit width−1 and height−1) or VP8X (24-bit canvas width−1, height−1).
    if len(head) < 30:
        raise _Truncated
    kind, data = head[12:16], head[20:30]
    if kind == b"VP8 ":
        if data[3:6] != b"\x9d\x01\x2a":
            return None
        w, h = struct.unpack("<HH", data[6:10])
        return w & 0x3FFF, h & 0x3FFF
    if kind == b"VP8L":
        if data[0] != 0x2F:
            return None
        (bits,) = struct.unpack("<I", data[1:5])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8X":
        return int.from_bytes(data[4:7], "little") + 1, int.from_bytes(data[7:10], "little") + 1
    return None


_PNM_TOKEN = re.compile(rb"(?:\s|#[^\n]*\n)*(\d+)")


def _pnm_size(fh: BinaryIO, head: bytes) -> tuple[int, int] | None:
    # Netpbm: "P1".."P6" (and PFM "Pf"/"PF") then width and height as decimal text, with
    # whitespace and "#" comments between; PAM ("P7") has "WIDTH n" and "HEIGHT n" lines.
    if head[:2] == b"P7":
        w = re.search(rb"\nWIDTH\s+(\d+)", head)
        h = re.search(rb"\nHEIGHT\s+(\d+)", head)
        if not (w and h):
            raise _Truncated
        return int(w.group(1)), int(h.group(1))
    pos, nums = 2, []
    for _ in range(2):
        m = _PNM_TOKEN.match(head, pos)
        if m is None or m.end() == len(head):
            raise _Truncated
        nums.append(int(m.group(1)))
        pos = m.end()
    return nums[0], nums[1]


def _gif_size(fh: BinaryIO, head: bytes) -> tuple[int, int]:
    # GIF89a spec §18: the logical screen descriptor follows the 6-byte signature.
    if len(head) < 10:
        raise _Truncated
    return struct.unpack("<HH", head[6:10])


_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG", _png_size),
    (b"\xff\xd8\xff", "JPEG", _jpeg_size),
    (b"BM", "BMP", _bmp_size),
    (b"II*\x00", "TIFF", _tiff_size), (b"MM\x00*", "TIFF", _tiff_size),
    (b"II+\x00", "TIFF", _tiff_size), (b"MM\x00+", "TIFF", _tiff_size),  # BigTIFF
    (b"GIF87a", "GIF", _gif_size), (b"GIF89a", "GIF", _gif_size),
)
_PNM_MAGIC = frozenset({b"P1", b"P2", b"P3", b"P4", b"P5", b"P6", b"P7", b"Pf", b"PF"})


def _sniff(fh: BinaryIO) -> tuple[str, tuple[int, int] | None]:
    """``(format, (w, h) or None)`` from an open file; format "" when no signature matches."""
    head = fh.read(4096)
    for magic, name, parse in _SIGNATURES:
        if head.startswith(magic):
            return name, parse(fh, head)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP", _webp_size(fh, head)
    if head[:2] in _PNM_MAGIC and len(head) > 2 and head[2:3].isspace():
        return "PNM", _pnm_size(fh, head)
    return "", None


def _open(path: Path) -> BinaryIO:
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise ImageReadError(path, "file not found") from None
    except IsADirectoryError:
        raise ImageReadError(path, "is a directory, not an image file") from None
    except PermissionError:
        raise ImageReadError(path, "permission denied") from None
    except OSError as exc:
        raise ImageReadError(path, f"cannot read: {exc.strerror or exc}") from None


def header_size(path: Path | str) -> tuple[str, int, int]:
    """The format and size of an image file, from its header alone (nothing is decoded).

    Reads a few KB at most (a JPEG's segments are skipped by their lengths; a TIFF's first IFD is
    found by its offset).

    Args:
        path: the image file.

    Returns:
        ``(format, width, height)``: format one of "PNG", "JPEG", "BMP", "TIFF", "WebP", "PNM",
        "GIF"; width and height in px as stored (before any EXIF rotation, which only swaps them).

    Raises:
        ImageReadError: the file is missing, a directory, unreadable or empty; it is not one of
            :data:`HEADER_FORMATS`; or its header is truncated or does not give a size (e.g. a JPEG
            whose height is left to a DNL marker).
    """
    p = Path(path)
    with _open(p) as fh:
        try:
            fmt, size = _sniff(fh)
        except (ValueError, OverflowError, struct.error):  # _Truncated, or offsets past any file
            size, fmt = None, "?"
        except OSError as exc:
            raise ImageReadError(p, f"cannot read: {exc.strerror or exc}") from None
        if fmt == "" and fh.seek(0, 2) == 0:
            raise ImageReadError(p, "file is empty")
    if fmt == "":
        raise ImageReadError(p, f"not a readable image (unknown or unsupported format; the readers take {HEADER_FORMATS})")
    if size is None or size[0] <= 0 or size[1] <= 0:
        raise ImageReadError(p, "not a readable image (corrupt or truncated header: no width and height)")
    return fmt, int(size[0]), int(size[1])


def check_image_file(path: Path | str, budget: int = MAX_PIXELS) -> tuple[str, int, int]:
    """:func:`header_size`, refusing an image above ``budget`` pixels or a file bigger than such
    an image can need.

    Returns:
        ``(format, width, height)`` as :func:`header_size`.

    Raises:
        ImageTooLargeError: width × height > ``budget``.
        ImageReadError: see :func:`header_size`; or the file holds more than 8 bytes per pixel of
            the size its header gives plus 16 MB (other data than that image).
    """
    p = Path(path)
    fmt, w, h = header_size(p)
    if w * h > budget:
        raise ImageTooLargeError(p, w, h, budget)
    nbytes = p.stat().st_size
    if nbytes > _MAX_BYTES_PER_PIXEL * w * h + _FILE_SLACK:
        raise ImageReadError(p, f"file is {nbytes / 1e6:.0f} MB, more than a {w}×{h} image can need")
    return fmt, w, h


def _decode(p: Path, flags: int, factor: int = 1) -> np.ndarray:
    """Decode with ``flags``; ``factor`` is the reduction they ask for (1, 2, 4, 8)."""
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ImageReadError(p, f"cannot read: {exc.strerror or exc}") from None
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    except cv2.error:  # some decoders raise instead of returning None on corrupt data
        img = None
    del data
    if img is None or img.size == 0:
        raise ImageReadError(p, "not a readable image (corrupt, truncated or unsupported format)")
    h, w = img.shape[:2]
    if h * w * factor * factor > MAX_PIXELS:
        # A header that understated the size (a later frame, a lying field): still refuse.
        raise ImageTooLargeError(p, w * factor, h * factor)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(img[:, :, :3], dtype=np.uint8)


def read_image(path: Path | str) -> np.ndarray:
    """Read an image file as colour, refusing one above :data:`MAX_PIXELS` before decoding it.

    Grey images are expanded to 3 channels and an alpha channel is dropped, so callers always
    get the same layout. The bytes are read with Python and decoded with ``cv2.imdecode`` so
    non-ASCII paths work on every platform (``cv2.imread`` mangles them on Windows). Readers
    should prefer :func:`read_working`, which also bounds the size they work at.

    Args:
        path: the image file (one of :data:`HEADER_FORMATS`).

    Returns:
        (H, W, 3) uint8 BGR array, H · W ≤ ``MAX_PIXELS``.

    Raises:
        ImageTooLargeError: the header gives more than ``MAX_PIXELS`` pixels (nothing decoded).
        ImageReadError: the file does not exist, is a directory, cannot be read (permissions),
            is empty, its size cannot be told from its header, or it is not a decodable image
            (corrupt or truncated data).
    """
    p = Path(path)
    check_image_file(p)
    return _decode(p, cv2.IMREAD_COLOR)


# ------------------------------------------------------------------ working size
def working_copy(image: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """The image reduced (``cv2.INTER_AREA``) so its long side is at most ``max_side`` px.

    Args:
        image: (H, W[, C]) uint8, any size.
        max_side: the longest side the reader needs, px (≥ 1).

    Returns:
        ``(copy, scale)``: ``scale`` = working px per original px (≤ 1). When the image already
        fits, ``image`` itself (not a copy) and 1.0. Map points back with :func:`to_original_px`.
    """
    h, w = image.shape[:2]
    if h == 0 or w == 0 or max(h, w) <= max_side:
        return image, 1.0
    scale = max_side / max(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), scale


def to_original_px(points: np.ndarray, scale: float) -> np.ndarray:
    """Points measured in a :func:`working_copy` (or :func:`read_working`) image, in the original
    image's px.

    Pixel centres map onto pixel centres (OpenCV's convention: pixel ``i`` covers ``[i − ½, i + ½]``),
    so ``x = (x' + ½) / scale − ½``.

    Args:
        points: (..., 2) float px (x, y) in the working image.
        scale: working px per original px, as returned with the copy.

    Returns:
        (..., 2) float32 px in the original image; ``points`` as float32 when ``scale`` is 1.
    """
    pts = np.asarray(points, np.float32)
    if scale == 1.0:
        return pts
    return ((pts + 0.5) / np.float32(scale) - 0.5).astype(np.float32)


@dataclass(frozen=True)
class WorkingImage:
    """An image file read at a reader's working size.

    image: (h, w, 3) uint8 BGR, long side ≤ the ``max_side`` asked for.
    scale: working px per original px (≤ 1; 1.0 when not shrunk).
    original_size: ``(W, H)`` of the file's image, px (after EXIF rotation).
    """

    image: np.ndarray
    scale: float
    original_size: tuple[int, int]

    @property
    def shrunk(self) -> bool:
        """Whether the reader sees fewer pixels than the file holds."""
        return self.scale < 1.0

    def note(self, path: Path | str) -> str:
        """:func:`shrink_note` for this read."""
        ow, oh = self.original_size
        return shrink_note(path, (oh, ow), self.image.shape)


def read_working(path: Path | str, max_side: int) -> WorkingImage:
    """Read an image file at a reader's working size, without ever holding more than
    ``MAX_PIXELS`` decoded pixels (and, for JPEG, often far fewer).

    A JPEG is decoded at the smallest of 1/8, 1/4, 1/2 scale (``IMREAD_REDUCED_COLOR_*``) whose
    long side is still ≥ ``max_side``; then any image still larger is reduced with ``INTER_AREA``
    to a long side of ``max_side``.

    Args:
        path: the image file.
        max_side: the longest side the reader works at, px.

    Returns:
        :class:`WorkingImage`; its ``scale`` is exact for the final size relative to the original
        (the intermediate reduced decode does not enter it).

    Raises:
        ImageTooLargeError, ImageReadError: as :func:`read_image`.
    """
    p = Path(path)
    fmt, w, h = check_image_file(p)
    flags, factor = cv2.IMREAD_COLOR, 1
    if fmt == "JPEG":
        for k, flag in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                        (2, cv2.IMREAD_REDUCED_COLOR_2)):
            if -(-max(w, h) // k) >= max_side:
                flags, factor = flag, k
                break
    img = _decode(p, flags, factor)
    dh, dw = img.shape[:2]
    if factor == 1:
        ow, oh = dw, dh
    else:  # EXIF orientation may have turned the image a quarter: follow the decoded layout
        ow, oh = (w, h) if (dw >= dh) == (w >= h) else (h, w)
    scale = min(1.0, max_side / max(ow, oh))
    size = (max(1, round(ow * scale)), max(1, round(oh * scale)))
    if (dw, dh) != size:
        img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    return WorkingImage(img, scale, (ow, oh))


def shrink_note(path: Path | str, original_shape: tuple[int, ...], working_shape: tuple[int, ...]) -> str:
    """The line that tells the user a reader looked at a reduced copy, e.g.
    ``"big.png: 12000×9000 read at 2048×1536"`` (the CLI prefixes ``companion: note: ``).

    Args:
        path: the image file, as the user gave it.
        original_shape, working_shape: numpy shapes ``(H, W[, C])``.
    """
    (oh, ow), (wh, ww) = original_shape[:2], working_shape[:2]
    return f"{path}: {ow}×{oh} read at {ww}×{wh}"


def example_folders(folder: Path | str, error: type[Exception], kind: str, example: str = "",
                    check_name=None) -> list[tuple[str, list[Path]]]:
    """The enrolment layout ``folder/<name>/<image>``: each sub-folder's name and its image files.

    Hidden entries and files whose suffix is not an image type (``IMAGE_SUFFIXES``) are skipped.
    Shared by the deck (``kind`` "label") and the dice (``kind`` "face") enrolments.

    Args:
        folder: the folder given to ``companion enroll``.
        error: the exception class to raise (the caller's enrolment error).
        kind: what a sub-folder names, for the messages ("label", "face").
        example: a sub-folder name to show in the messages (``"maki*2"``), or "".
        check_name: called with each sub-folder (a Path) before any is listed, to refuse a name
            (it raises); None accepts every name.

    Returns:
        ``[(name, [image path, ...])]`` in name order, the paths in name order.

    Raises:
        error: the folder is missing or not a folder, has no sub-folders, or a sub-folder has no
            images; the message names the folder.
    """
    root = Path(folder)
    e_g = f", e.g. {root}/{example}/" if example else ""
    if not root.exists():
        raise error(f"{root}: {'deck' if kind == 'label' else 'dice'} folder not found")
    if not root.is_dir():
        raise error(f"{root}: not a folder (expected one sub-folder per {kind}{e_g})")
    subdirs = sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith("."))
    if not subdirs:
        raise error(f"{root}: no {kind} sub-folders (expected {root}/<{kind}>/<image>.png)")
    if check_name is not None:
        for d in subdirs:
            check_name(d)
    out = []
    for d in subdirs:
        files = sorted(f for f in d.iterdir() if not f.name.startswith(".") and f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise error(f"{d}: no images for {kind} {d.name!r} "
                        f"(expected files ending in {', '.join(sorted(IMAGE_SUFFIXES))})")
        out.append((d.name, files))
    return out
