"""Reading image files for the vision commands, with errors that name the file.

``cv2.imread`` returns ``None`` for every kind of failure (missing file, directory, truncated or
non-image data, unsupported format); :func:`read_image` turns those into one named exception
whose message says which file and why, so the CLI can report it and carry on with the others.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

#: File name endings the enrolment treats as images (other files in a label folder are ignored).
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm", ".pnm"})


class ImageReadError(OSError):
    """An image file is missing, unreadable or not a decodable image. ``str()`` names the file."""

    def __init__(self, path: Path | str, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __str__(self) -> str:  # OSError's default str() would prefix an errno
        return f"{self.path}: {self.reason}"


def read_image(path: Path | str) -> np.ndarray:
    """Read an image file as colour.

    Grey images are expanded to 3 channels and an alpha channel is dropped, so callers always
    get the same layout. The bytes are read with Python and decoded with ``cv2.imdecode`` so
    non-ASCII paths work on every platform (``cv2.imread`` mangles them on Windows).

    Args:
        path: the image file (PNG, JPEG, BMP, TIFF, WebP, PNM — whatever OpenCV decodes).

    Returns:
        (H, W, 3) uint8 BGR array.

    Raises:
        ImageReadError: the file does not exist, is a directory, cannot be read (permissions),
            is empty, or is not a decodable image (corrupt or truncated data).
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ImageReadError(p, "file not found") from None
    except IsADirectoryError:
        raise ImageReadError(p, "is a directory, not an image file") from None
    except PermissionError:
        raise ImageReadError(p, "permission denied") from None
    except OSError as exc:
        raise ImageReadError(p, f"cannot read: {exc.strerror or exc}") from None
    if not data:
        raise ImageReadError(p, "file is empty")
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:  # some decoders raise instead of returning None on corrupt data
        img = None
    if img is None or img.size == 0:
        raise ImageReadError(p, "not a readable image (corrupt, truncated or unsupported format)")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(img[:, :, :3], dtype=np.uint8)
