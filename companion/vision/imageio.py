"""Reading image files for the vision commands, with errors that name the file and a bounded size.

``cv2.imread`` returns ``None`` for every kind of failure (missing file, directory, truncated or
non-image data, unsupported format); :func:`read_image` turns those into one named exception
whose message says which file and why, so the CLI can report it and carry on with the others.

Bounded memory (issues #7 and #14)
----------------------------------
A PNG of 30000 × 30000 zero pixels is 0.9 MB on disk and 2.7 GB once decoded as BGR; the readers
then made several copies of it (5 – 9 GB measured, and a segmentation fault inside
``cv2.warpPerspective``). OpenCV's Python API has no header-only read, so the image's width and
height (and, where the decoder's memory depends on them, its samples per pixel, bit depth and
JPEG coding) are taken from the file's own header with the standard library
(:func:`read_header`: PNG ``IHDR``, JPEG ``SOFn``, BMP ``BITMAPINFOHEADER``, TIFF first IFD, WebP
``VP8``/``VP8L``/``VP8X``, PNM/PAM, GIF logical screen) and checked *before* anything is decoded
against two limits: :data:`MAX_PIXELS`, and :data:`DECODE_BUDGET` bytes of decoder memory at the
bytes per pixel measured for that format and layout (:func:`decode_bytes_per_px`). A file whose
size the header does not give is refused, not decoded to find out.

Only regular files are opened (a named pipe would block ``open`` forever, a device never ends),
without blocking, and the file whose header was checked is the one decoded: OpenCV reads it
through ``/proc/self/fd`` (Linux) rather than by its name, so it is never read into Python memory
whole, and a name that is not valid UTF-8 never reaches ``cv2.imread`` (which crashes on one).

Every reader then works on a copy no larger than it needs (:func:`working_copy`,
:func:`read_working`): a JPEG is decoded directly at 1/2, 1/4 or 1/8 scale
(``cv2.IMREAD_REDUCED_COLOR_*``, libjpeg's DCT scaling, which never builds the full-size image)
when that still leaves the working size; PNG, BMP, PNM and WebP at 1/2 (OpenCV decodes them whole
and halves them before returning, with a 2 × 2 mean: the same pixels as ``INTER_AREA``, and one
full-size copy fewer); the rest are decoded whole and reduced with ``INTER_AREA``. Readers report
coordinates in the original image's px (:func:`to_original_px`).

Any layout is normalised: grey, grey + alpha, palette, RGBA and 16-bit images all come back as
(H, W, 3) uint8 BGR (``cv2.IMREAD_COLOR``: alpha dropped, 16 bits taken to their top 8); a
floating-point image (PFM, float TIFF: not a photo) is refused by name. An image too thin or too
small to show a card or a die at the reader's working size (:data:`MIN_SIDE`) is refused from its
header too (:class:`DegenerateImageError`), so a batch reports it and reads the others.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
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
#: resolution; all pass. Decoded as 8-bit BGR, 50 MP is 150 MB; 12000 × 12000 (144 MP, 432 MB)
#: or 30000 × 30000 (900 MP, 2.7 GB) cannot be held on a 1 GB Pi beside the program.
MAX_PIXELS = 50_000_000

#: Decoder memory (bytes) an image may need, at :func:`decode_bytes_per_px`: 6 B/px × 50 MP. With
#: the program itself (≈ 65 MB with a deck loaded) a command's peak stays under the 512 MB issue
#: #14 asks for on any single input: :func:`read_image` of 50 MP of noise measured 344 MB peak,
#: ``companion classify`` (which decodes it halved) 237 MB; a layout whose decoder needs more bytes
#: a pixel gets fewer pixels, and peaks the same (``bench/vision_inputs.py``).
DECODE_BUDGET = 6 * MAX_PIXELS

#: The shortest side (px) an image may have at the reader's working size: nothing a reader looks
#: for fits in less (the card descriptor's patch is 30 × 43 px, the smallest die top face the
#: finders take 28 px, the smallest card outline 8 px inside a border of table). A 1 × 100000 px
#: strip is 1 px high at any working size.
MIN_SIDE = 16

#: An accepted image's file may hold at most this many bytes per pixel (16-bit RGBA, uncompressed)
#: plus :data:`_FILE_SLACK` of metadata; anything bigger is not just that image.
_MAX_BYTES_PER_PIXEL = 8
_FILE_SLACK = 16 << 20

#: Formats whose header :func:`read_header` reads; other files are refused before decoding.
HEADER_FORMATS = "PNG, JPEG, BMP, TIFF, WebP, PNM/PAM, GIF"


class ImageReadError(OSError):
    """An image file is missing, unreadable or not a decodable image. ``str()`` names the file."""

    def __init__(self, path: Path | str, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __str__(self) -> str:  # OSError's default str() would prefix an errno
        return f"{self.path}: {self.reason}"


class ImageTooLargeError(ImageReadError):
    """An image whose header gives more pixels than it may have; refused before decoding.

    Attributes:
        width, height: the size the header gives, px.
        budget: the limit it broke, px: ``MAX_PIXELS``, or fewer for a layout whose decoder needs
            more than 6 bytes a pixel (``DECODE_BUDGET`` / :func:`decode_bytes_per_px`).
    """

    def __init__(self, path: Path | str, width: int, height: int, budget: int = MAX_PIXELS, layout: str = ""):
        self.width, self.height, self.budget = width, height, budget
        mp = f"image is {width}×{height} ({width * height / 1e6:.1f} MP), more than the {budget / 1e6:.3g} MP"
        if layout:
            reason = (f"{mp} a {layout} may have (its decoder needs more memory a pixel than an 8-bit PNG "
                      "or JPEG); scale it down or save it as PNG or JPEG")
        else:
            reason = f"{mp} an image may have (a 48 MP phone photo fits); scale it down first"
        super().__init__(path, reason)


class DegenerateImageError(ImageReadError):
    """An image too thin or too small to show anything at a reader's working size; refused from
    its header, before decoding.

    Attributes:
        width, height: the image's size, px.
        short_side: its short side at the working size, px.
        min_side: the least a reader needs, px (``MIN_SIDE``).
    """

    def __init__(self, path: Path | str, width: int, height: int, short_side: int, min_side: int):
        self.width, self.height, self.short_side, self.min_side = width, height, short_side, min_side
        shape = "too small" if max(width, height) < min_side else "too thin"
        at = ("" if short_side == min(width, height)
              else f" (read at the reader's working size its short side is {short_side} px)")
        super().__init__(path, f"image is {width}×{height} px, {shape} to show a card or a die{at}; "
                               f"a reader needs at least {min_side} px on the short side")


# ------------------------------------------------------------------ header parsing (stdlib only)
@dataclass(frozen=True)
class ImageHeader:
    """What an image file's header says, before any pixel is decoded.

    format: "PNG", "JPEG", "BMP", "TIFF", "WebP", "PNM" or "GIF".
    width, height: px as stored (before any EXIF rotation, which only swaps them).
    samples: samples per pixel as stored (TIFF; JPEG components), else None.
    bits: bits per sample (TIFF), else None.
    floating: the samples are floating-point (PFM, TIFF SampleFormat 3).
    progressive: a progressive JPEG (SOF2/6/10/14), whose decoder holds every DCT coefficient.
    coefficients: JPEG only: DCT coefficients per pixel, Σ HᵢVᵢ / (Hmax·Vmax) over the components
        (3 for 4:4:4 colour, 1.5 for 4:2:0).
    """

    format: str
    width: int
    height: int
    samples: int | None = None
    bits: int | None = None
    floating: bool = False
    progressive: bool = False
    coefficients: float = 0.0


class _Truncated(ValueError):
    """The header ends before it gives the size."""


def _read_exact(fh: BinaryIO, n: int) -> bytes:
    b = fh.read(n)
    if len(b) != n:
        raise _Truncated
    return b


def _png_header(fh: BinaryIO, head: bytes) -> ImageHeader:
    # PNG spec §11.2.2: the first chunk is IHDR: width, height (4-byte big-endian each), bit depth.
    if len(head) < 26 or head[12:16] != b"IHDR":
        raise _Truncated
    w, h = struct.unpack(">II", head[16:24])
    return ImageHeader("PNG", w, h, bits=head[24])


#: SOFn markers (ITU T.81 table B.1): C0–CF except DHT (C4), JPG (C8) and DAC (CC).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_PROGRESSIVE_SOF = frozenset({0xC2, 0xC6, 0xCA, 0xCE})


def _jpeg_header(fh: BinaryIO, head: bytes) -> ImageHeader | None:
    # ITU T.81 §B.2: segments "FF xx [len:2] ..." up to the frame header SOFn (§B.2.2):
    # precision (1), lines Y (2), samples per line X (2), components Nf (1), then per component
    # its id, Hᵢ·16 + Vᵢ sampling factors and table. APPn (EXIF, thumbnails) are skipped by length.
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
            _, h, w, nf = struct.unpack(">BHHB", _read_exact(fh, 6))
            if h == 0 or nf == 0:
                return None  # height 0: given later by a DNL marker
            comps = _read_exact(fh, 3 * nf)
            hv = [(c >> 4, c & 15) for c in comps[1::3]]
            hmax, vmax = max(a for a, _ in hv), max(b for _, b in hv)
            coeff = sum(a * b for a, b in hv) / max(1, hmax * vmax)
            return ImageHeader("JPEG", w, h, samples=nf, progressive=marker in _PROGRESSIVE_SOF, coefficients=coeff)
        fh.seek(length - 2, 1)


def _bmp_header(fh: BinaryIO, head: bytes) -> ImageHeader:
    # BITMAPFILEHEADER (14 bytes), then the DIB header; its first field is its own size. 12 is the
    # OS/2 BITMAPCOREHEADER (16-bit sizes), larger ones start like BITMAPINFOHEADER (signed 32-bit,
    # height negative for top-down rows).
    if len(head) < 26:
        raise _Truncated
    (dib,) = struct.unpack("<I", head[14:18])
    if dib == 12:
        return ImageHeader("BMP", *struct.unpack("<HH", head[18:22]))
    w, h = struct.unpack("<ii", head[18:26])
    return ImageHeader("BMP", abs(w), abs(h))


_TIFF_TYPES = {1: "B", 3: "H", 4: "I", 16: "Q"}  # BYTE, SHORT, LONG, LONG8 (BigTIFF)


def _tiff_header(fh: BinaryIO, head: bytes) -> ImageHeader | None:
    # TIFF 6.0 §2 (and BigTIFF): byte order, magic 42 (43 = BigTIFF), offset of the first IFD; tags
    # 256 ImageWidth, 257 ImageLength, 258 BitsPerSample (default 1), 277 SamplesPerPixel (default
    # 1) and 339 SampleFormat (3 = IEEE float; default 1). A value that does not fit in its entry
    # is at an offset (its first element is what counts: OpenCV takes one depth for all samples).
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
    tags: dict[int, int] = {}
    entry = 20 if big else 12
    for _ in range(min(count, 4096)):
        raw = _read_exact(fh, entry)
        tag, typ = struct.unpack(e + "HH", raw[:4])
        if tag not in (256, 257, 258, 277, 339):
            continue
        fmt = _TIFF_TYPES.get(typ)
        if fmt is None:
            return None
        (n,) = struct.unpack(e + ("Q" if big else "I"), raw[4:12] if big else raw[4:8])
        value = raw[12:] if big else raw[8:]
        size = struct.calcsize(fmt)
        if n * size > len(value):
            (offset,) = struct.unpack(e + ("Q" if big else "I"), value)
            here = fh.tell()
            fh.seek(offset)
            value = _read_exact(fh, size)
            fh.seek(here)
        (tags[tag],) = struct.unpack(e + fmt, value[:size])
    if 256 not in tags or 257 not in tags:
        return None
    return ImageHeader("TIFF", tags[256], tags[257], samples=tags.get(277, 1), bits=tags.get(258, 1),
                       floating=tags.get(339, 1) == 3)


def _webp_header(fh: BinaryIO, head: bytes) -> ImageHeader | None:
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
        return ImageHeader("WebP", w & 0x3FFF, h & 0x3FFF)
    if kind == b"VP8L":
        if data[0] != 0x2F:
            return None
        (bits,) = struct.unpack("<I", data[1:5])
        return ImageHeader("WebP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if kind == b"VP8X":
        return ImageHeader("WebP", int.from_bytes(data[4:7], "little") + 1, int.from_bytes(data[7:10], "little") + 1)
    return None


_PNM_TOKEN = re.compile(rb"(?:\s|#[^\n]*\n)*(\d+)")


def _pnm_header(fh: BinaryIO, head: bytes) -> ImageHeader:
    # Netpbm: "P1".."P6" (and PFM "Pf"/"PF", floating-point) then width and height as decimal
    # text, with whitespace and "#" comments between; PAM ("P7") has "WIDTH n" and "HEIGHT n" lines.
    if head[:2] == b"P7":
        w = re.search(rb"\nWIDTH\s+(\d+)", head)
        h = re.search(rb"\nHEIGHT\s+(\d+)", head)
        if not (w and h):
            raise _Truncated
        return ImageHeader("PNM", int(w.group(1)), int(h.group(1)))
    pos, nums = 2, []
    for _ in range(2):
        m = _PNM_TOKEN.match(head, pos)
        if m is None or m.end() == len(head):
            raise _Truncated
        nums.append(int(m.group(1)))
        pos = m.end()
    return ImageHeader("PNM", nums[0], nums[1], floating=head[:2] in (b"Pf", b"PF"))


def _gif_header(fh: BinaryIO, head: bytes) -> ImageHeader:
    # GIF89a spec §18: the logical screen descriptor follows the 6-byte signature. (OpenCV refuses
    # a frame that does not fit in it, so it bounds what is decoded.)
    if len(head) < 10:
        raise _Truncated
    return ImageHeader("GIF", *struct.unpack("<HH", head[6:10]))


_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG", _png_header),
    (b"\xff\xd8\xff", "JPEG", _jpeg_header),
    (b"BM", "BMP", _bmp_header),
    (b"II*\x00", "TIFF", _tiff_header), (b"MM\x00*", "TIFF", _tiff_header),
    (b"II+\x00", "TIFF", _tiff_header), (b"MM\x00+", "TIFF", _tiff_header),  # BigTIFF
    (b"GIF87a", "GIF", _gif_header), (b"GIF89a", "GIF", _gif_header),
)
_PNM_MAGIC = frozenset({b"P1", b"P2", b"P3", b"P4", b"P5", b"P6", b"P7", b"Pf", b"PF"})


def _sniff(fh: BinaryIO) -> tuple[str, ImageHeader | None]:
    """``(format, header or None)`` from an open file; format "" when no signature matches."""
    head = fh.read(4096)
    for magic, name, parse in _SIGNATURES:
        if head.startswith(magic):
            return name, parse(fh, head)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP", _webp_header(fh, head)
    if head[:2] in _PNM_MAGIC and len(head) > 2 and head[2:3].isspace():
        return "PNM", _pnm_header(fh, head)
    return "", None


def _no_block(path: str, flags: int) -> int:
    # A named pipe's open() waits for a writer; O_NONBLOCK returns at once, and fstat then refuses it.
    return os.open(path, flags | os.O_NONBLOCK)


def _open(path: Path) -> BinaryIO:
    """``path`` opened for reading, refused unless it is a regular file."""
    try:
        fh = open(path, "rb", opener=_no_block)
    except FileNotFoundError:
        raise ImageReadError(path, "file not found") from None
    except IsADirectoryError:
        raise ImageReadError(path, "is a directory, not an image file") from None
    except PermissionError:
        raise ImageReadError(path, "permission denied") from None
    except OSError as exc:
        raise ImageReadError(path, f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
        fh.close()
        raise ImageReadError(path, "not a regular file (a named pipe, device or socket); the readers take image files")
    return fh


def _header_of(fh: BinaryIO, p: Path) -> ImageHeader:
    try:
        fmt, hdr = _sniff(fh)
    except (ValueError, OverflowError, struct.error):  # _Truncated, or offsets past any file
        hdr, fmt = None, "?"
    except OSError as exc:
        raise ImageReadError(p, f"cannot read: {exc.strerror or exc}") from None
    if fmt == "" and os.fstat(fh.fileno()).st_size == 0:
        raise ImageReadError(p, "file is empty")
    if fmt == "":
        raise ImageReadError(p, f"not a readable image (unknown or unsupported format; the readers take {HEADER_FORMATS})")
    if hdr is None or hdr.width <= 0 or hdr.height <= 0:
        raise ImageReadError(p, "not a readable image (corrupt or truncated header: no width and height)")
    return hdr


def read_header(path: Path | str) -> ImageHeader:
    """What an image file's header says (nothing is decoded; a few KB are read at most: a JPEG's
    segments are skipped by their lengths, a TIFF's first IFD is found by its offset).

    Args:
        path: the image file.

    Returns:
        :class:`ImageHeader`.

    Raises:
        ImageReadError: the file is missing, a directory, not a regular file (a named pipe, a
            device), unreadable or empty; it is not one of :data:`HEADER_FORMATS`; or its header is
            truncated or does not give a size (e.g. a JPEG whose height is left to a DNL marker).
    """
    p = Path(path)
    with _open(p) as fh:
        return _header_of(fh, p)


def header_size(path: Path | str) -> tuple[str, int, int]:
    """``(format, width, height)`` of an image file from its header alone (:func:`read_header`).

    Raises:
        ImageReadError: as :func:`read_header`.
    """
    h = read_header(path)
    return h.format, h.width, h.height


def decode_bytes_per_px(header: ImageHeader) -> int:
    """Peak memory OpenCV 5 needs to decode an image of this layout in full, bytes per pixel.

    Measured (``/proc/self/status`` VmHWM over a bare interpreter, 50 MP noise images, one process
    each; see ``bench/vision_inputs.py``): 5.8 B/px for PNG (8 and 16-bit, grey to RGBA), baseline
    JPEG, BMP, PNM/PAM, WebP and 8-bit TIFF (the 3-byte BGR result, and one copy of it on the way
    out); TIFF 6.7 for RGBA, 8.6 for 16-bit RGB, 10.5 for 16-bit RGBA (libtiff's decoder holds the
    image at its own depth first: samples × bytes + 3); GIF 11.5 (OpenCV's decoder keeps an RGBA
    canvas and the frame); progressive JPEG 8.6 at 4:4:4 (libjpeg holds every 2-byte DCT
    coefficient until the last scan: 2 × coefficients + 3).

    Args:
        header: from :func:`read_header`.

    Returns:
        bytes per pixel, ≥ 6.
    """
    if header.format == "TIFF":
        depth = -(-max(8, header.bits or 8) // 8)
        return max(6, (header.samples or 1) * depth + 3)
    if header.format == "GIF":
        return 12
    if header.format == "JPEG" and header.progressive:
        return max(6, int(np.ceil(2 * header.coefficients)) + 3)
    return 6


def _layout(h: ImageHeader) -> str:
    if h.format == "TIFF":
        return f"TIFF with {h.samples} samples of {h.bits} bits a pixel"
    if h.format == "JPEG" and h.progressive:
        return "progressive JPEG"
    return h.format


def _check(p: Path, fh: BinaryIO, budget: int, max_side: int | None, min_side: int) -> ImageHeader:
    """The header of the open file ``fh``, refused (named errors) unless the image may be decoded."""
    h = _header_of(fh, p)
    if h.floating:
        raise ImageReadError(p, f"floating-point {h.format} image: not a photo (a reader takes 8- or 16-bit "
                                "images); save it as PNG or JPEG")
    w, hh = h.width, h.height
    cost = decode_bytes_per_px(h)
    limit = min(budget, DECODE_BUDGET // cost)
    if w * hh > limit:
        raise ImageTooLargeError(p, w, hh, limit, _layout(h) if limit < budget else "")
    nbytes = os.fstat(fh.fileno()).st_size
    if nbytes > _MAX_BYTES_PER_PIXEL * w * hh + _FILE_SLACK:
        raise ImageReadError(p, f"file is {nbytes / 1e6:.0f} MB, more than a {w}×{hh} image can need")
    scale = 1.0 if max_side is None else min(1.0, max_side / max(w, hh))
    short = max(1, round(min(w, hh) * scale))  # as read_working sizes its copy
    if short < min_side:
        raise DegenerateImageError(p, w, hh, short, min_side)
    return h


def check_image_file(path: Path | str, budget: int = MAX_PIXELS) -> tuple[str, int, int]:
    """:func:`read_header`, refusing an image above ``budget`` pixels (or above ``DECODE_BUDGET``
    bytes of decoder memory for its layout), a floating-point image, or a file bigger than such an
    image can need.

    Returns:
        ``(format, width, height)`` as :func:`header_size`.

    Raises:
        ImageTooLargeError: width × height > ``budget``, or × :func:`decode_bytes_per_px` >
            ``DECODE_BUDGET``.
        ImageReadError: see :func:`read_header`; a floating-point image (PFM, float TIFF); or the
            file holds more than 8 bytes per pixel of the size its header gives plus 16 MB.
    """
    p = Path(path)
    with _open(p) as fh:
        h = _check(p, fh, budget, None, 1)
    return h.format, h.width, h.height


@contextlib.contextmanager
def _quiet_opencv():
    """OpenCV's own log lines ("[ WARN:0@0.1] global grfmt_tiff.cpp ...") off while decoding: the
    failure is reported once, by name, as an :class:`ImageReadError`."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        yield
    finally:
        cv2.utils.logging.setLogLevel(level)


def _decode(p: Path, fh: BinaryIO, flags: int, factor: int = 1, limit: int = MAX_PIXELS) -> np.ndarray:
    """Decode the open file ``fh`` (of ``p``) with ``flags``; ``factor`` is the reduction they ask
    for (1, 2, 4, 8)."""
    by_fd = f"/proc/self/fd/{fh.fileno()}"
    try:
        with _quiet_opencv():
            if os.path.exists(by_fd):  # the very file checked, read by OpenCV in pieces
                img = cv2.imread(by_fd, flags)
            else:  # no /proc (not Linux): the bytes, which were bounded by the header check
                fh.seek(0)
                img = cv2.imdecode(np.frombuffer(fh.read(), np.uint8), flags)
    except cv2.error:  # some decoders raise instead of returning None on corrupt data
        img = None
    except OSError as exc:
        raise ImageReadError(p, f"cannot read: {exc.strerror or exc}") from None
    if img is None or img.size == 0:
        raise ImageReadError(p, "not a readable image (corrupt, truncated or unsupported format)")
    h, w = img.shape[:2]
    if h * w * factor * factor > limit:
        # A header that understated the size (a later frame, a lying field): still refuse.
        raise ImageTooLargeError(p, w * factor, h * factor, limit)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(img[:, :, :3], dtype=np.uint8)


def read_image(path: Path | str, min_side: int = MIN_SIDE) -> np.ndarray:
    """Read an image file as colour, refusing before decoding one above the pixel budget, a
    floating-point one, and one too small to read.

    Grey, palette and 16-bit images are brought to 8-bit BGR and an alpha channel is dropped
    (``cv2.IMREAD_COLOR``), so callers always get the same layout. Readers should prefer
    :func:`read_working`, which also bounds the size they work at.

    Args:
        path: the image file (one of :data:`HEADER_FORMATS`).
        min_side: the least short side accepted, px (``MIN_SIDE``).

    Returns:
        (H, W, 3) uint8 BGR array, H · W ≤ ``MAX_PIXELS``.

    Raises:
        ImageTooLargeError: the header gives more than ``MAX_PIXELS`` pixels, or more than its
            layout's decoder may hold in ``DECODE_BUDGET`` (nothing decoded).
        DegenerateImageError: the header gives a short side under ``min_side`` (nothing decoded).
        ImageReadError: the file does not exist, is a directory or not a regular file, cannot be
            read (permissions), is empty, its size cannot be told from its header, it is a
            floating-point image, or it is not a decodable image (corrupt or truncated data).
    """
    p = Path(path)
    with _open(p) as fh:
        h = _check(p, fh, MAX_PIXELS, None, min_side)
        return _decode(p, fh, cv2.IMREAD_COLOR, limit=min(MAX_PIXELS, DECODE_BUDGET // decode_bytes_per_px(h)))


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


#: Formats OpenCV decodes whole and then halves for ``IMREAD_REDUCED_COLOR_2`` (a 2 × 2 mean, the
#: same pixels as ``INTER_AREA`` on even sizes): 50 MP noise PNG 222 MB peak that way, 328 MB
#: decoded in full. (TIFF's and GIF's decoders hold their own copy first: halving only adds one.)
_HALVED_ON_DECODE = frozenset({"PNG", "BMP", "PNM", "WebP"})


def read_working(path: Path | str, max_side: int, min_side: int = MIN_SIDE) -> WorkingImage:
    """Read an image file at a reader's working size, without ever holding more than
    ``MAX_PIXELS`` decoded pixels (and, for JPEG, often far fewer).

    A JPEG is decoded at the smallest of 1/8, 1/4, 1/2 scale (``IMREAD_REDUCED_COLOR_*``) whose
    long side is still ≥ ``max_side``; a PNG, BMP, PNM or WebP at 1/2 when that still leaves
    ``max_side``; then any image still larger is reduced with ``INTER_AREA`` to a long side of
    ``max_side``.

    Args:
        path: the image file.
        max_side: the longest side the reader works at, px.
        min_side: the least short side the reader can use at that size, px (``MIN_SIDE``); the
            check is made on the header's size, before decoding.

    Returns:
        :class:`WorkingImage`; its ``scale`` is exact for the final size relative to the original
        (the intermediate reduced decode does not enter it).

    Raises:
        ImageTooLargeError, DegenerateImageError, ImageReadError: as :func:`read_image` (the short
            side judged at the working size: a 1 × 100000 px strip is 1 × 2048 there).
    """
    p = Path(path)
    with _open(p) as fh:
        hdr = _check(p, fh, MAX_PIXELS, max_side, min_side)
        w, h = hdr.width, hdr.height
        flags, factor = cv2.IMREAD_COLOR, 1
        if hdr.format == "JPEG":
            steps = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4), (2, cv2.IMREAD_REDUCED_COLOR_2))
        elif hdr.format in _HALVED_ON_DECODE:
            steps = ((2, cv2.IMREAD_REDUCED_COLOR_2),)
        else:
            steps = ()
        for k, flag in steps:
            if max(w, h) // k >= max_side:
                flags, factor = flag, k
                break
        img = _decode(p, fh, flags, factor, limit=min(MAX_PIXELS, DECODE_BUDGET // decode_bytes_per_px(hdr)))
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
