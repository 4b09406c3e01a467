"""Frame sources: one small contract, real cameras beside first-class fakes (the gpiozero way).

Every source gives:
  * ``read()`` → (H, W, 3) uint8 BGR, the full-resolution frame the vision reads, or None when no
    frame is available (a dropped frame, a corrupt file, the end of a recording);
  * ``read_lores()`` → (h, w, 3) uint8 BGR about 320×240, cheap enough for motion detection every
    frame, or None like ``read()``;
  * ``close()``, and use as a context manager (``with open_camera("pi") as cam: ...``).

Timing model: every ``read()`` or ``read_lores()`` call is one capture. A live camera captures
the scene now; a recorded source (``ReplaySource``, ``FakeSource``) hands out its *next* frame,
so a ``read_lores()`` consumes a frame just like ``read()`` does. To replay per-turn stills, call
``read()`` only (or derive the small frame with ``downscale_lores``).

``main_for_lores()`` → the full frame of the capture the last ``read_lores()`` came from, or None:
the loop reads the very frame the settle detector judged still, without waiting for another
(the Pi camera takes both streams from one request; the others keep the frame they shrank).

``open_camera(spec)`` picks a source from a string, for the command line:
``"pi"``, ``"pi:2028x1520"``, ``"replay:DIR"`` (or ``"replay:a.png,b.png"``), ``"usb:0"``,
``"fake"``, ``"fake:640x480"``.

Sources: Picamera2 manual (Raspberry Pi, "The Picamera2 Library"): §4 stream configuration
(main + lores), Appendix A pixel formats (``RGB888`` is laid out ``[B, G, R]``, ``YUV420`` arrays
are ``(height*3/2, width)``); OpenCV ``cv2.imread``/``cv2.VideoCapture`` reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

#: The small stream's size (w, h): 4:3 like the main stream, and a multiple of 64 px wide so
#: the Pi's YUV420 lores buffer has no row padding (Picamera2 manual, Appendix A alignment).
LORES_SIZE = (320, 240)
#: Main stream size (w, h) for the Pi: the HQ camera's 2×2-binned full field of view, and close
#: to Camera Module 3's 2304×1296 binned mode in pixel count.
PI_MAIN_SIZE = (2028, 1520)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
#: Longest wait for the Pi camera's next frame, s (6 frames at 30 fps): longer, and the frame is
#: taken as dropped, so a stalled camera shows as a status instead of freezing the loop.
CAPTURE_TIMEOUT_S = 0.2


class CameraError(RuntimeError):
    """A frame source cannot be opened or used (closed, misconfigured)."""


class CameraUnavailableError(CameraError):
    """The camera stack is missing or no camera is attached. The message says what to install."""


@runtime_checkable
class FrameSource(Protocol):
    """What the app needs from a camera. See the module docstring for the timing model."""

    def read(self) -> np.ndarray | None:
        """The next full frame, (H, W, 3) uint8 BGR, or None if none is available."""
        ...

    def read_lores(self) -> np.ndarray | None:
        """The next small frame, (h, w, 3) uint8 BGR about 320×240, or None."""
        ...

    def main_for_lores(self) -> np.ndarray | None:
        """The full frame of the last ``read_lores`` capture, (H, W, 3) uint8 BGR, or None."""
        ...

    def close(self) -> None:
        """Release the device. Safe to call twice. Reading afterwards raises CameraError."""
        ...

    def __enter__(self) -> "FrameSource": ...

    def __exit__(self, *exc) -> None: ...


def downscale_lores(frame: np.ndarray, width: int = LORES_SIZE[0]) -> np.ndarray:
    """Shrink a (H, W, 3) uint8 frame to ``width`` px wide, keeping its aspect ratio.

    Returns (round(H·width/W), width, 3) uint8. INTER_AREA averages, which also removes noise
    that would look like motion.
    """
    import cv2

    h, w = frame.shape[:2]
    height = max(1, round(h * width / w))
    return cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)


class _Source:
    """Shared plumbing: context manager, closed state, lores derived from the main frame."""

    lores_width = LORES_SIZE[0]
    _closed = False
    _lores_of: np.ndarray | None = None  # the full frame the last small one was made from

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise CameraError(f"{type(self).__name__} is closed")

    def read(self) -> np.ndarray | None:  # pragma: no cover - every source overrides it
        raise NotImplementedError

    _lores: np.ndarray | None = None  # the small frame made from _lores_of

    def read_lores(self) -> np.ndarray | None:
        frame = self.read()
        if frame is not None and frame is self._lores_of and self._lores is not None:
            return self._lores  # the same frame again (a replayed still table): the same small one
        self._lores_of = frame
        self._lores = None if frame is None else downscale_lores(frame, self.lores_width)
        return self._lores

    def main_for_lores(self) -> np.ndarray | None:
        """The full frame the last ``read_lores`` shrank (None before one, or after a dropped frame)."""
        return self._lores_of


class FakeSource(_Source):
    """A source that plays the frames it is given: the first-class fake for tests and the demo.

    Args:
        frames: an iterable of (H, W, 3) uint8 BGR arrays; None entries stand for dropped
            frames. Frames are handed out as given (not copied, not validated), so tests can
            also feed bad frames on purpose.
        repeat_last: after the last frame, keep returning it (a still table) instead of None.

    ``read()`` returns None once the frames run out (``exhausted`` is then True).
    """

    def __init__(self, frames: Iterable[np.ndarray | None], repeat_last: bool = False) -> None:
        self._frames: Iterator = iter(frames)
        self._repeat_last = repeat_last
        self._last: np.ndarray | None = None
        self.exhausted = False
        self.frames_read = 0

    def read(self) -> np.ndarray | None:
        self._check_open()
        try:
            frame = next(self._frames)
        except StopIteration:
            self.exhausted = True
            return self._last if self._repeat_last else None
        self.frames_read += 1
        self._last = frame
        return frame

    def __iter__(self) -> Iterator[np.ndarray | None]:
        """Yield frames until the source runs out (never ends with ``repeat_last``)."""
        while True:
            frame = self.read()
            if self.exhausted and not self._repeat_last:
                return
            yield frame


def _natural_key(path: Path):
    """Sort 'frame2' before 'frame10' (recorders rarely zero-pad)."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


class ReplaySource(_Source):
    """Play back recorded frames (JPEG/PNG) as if they came from the camera.

    Args:
        folder_or_paths: a folder (its ``*.jpg``, ``*.jpeg``, ``*.png`` files, any case, in
            natural name order: ``f2`` before ``f10``), a single image file, or an iterable of
            image paths (played in the given order).
        loop: start again after the last frame instead of returning None.
        decode: reads one frame file into (H, W, 3) uint8 BGR, raising ``OSError`` (with the
            reason as its message) for a file it will not read. The commands pass the vision
            layer's bounded reader (``companion.vision.imageio.read_working``: regular files only,
            a pixel budget checked from the header, a working size), so a huge or hostile frame
            is a named problem, not a memory blow-up. Default: ``cv2.imdecode`` of the bytes.

    Raises:
        FileNotFoundError: the folder or a single file does not exist.
        ValueError: the folder holds no JPEG/PNG files.

    A file that cannot be decoded makes ``read()`` return None and is recorded in ``problems``
    as ``(path, reason)``; playback goes on with the next file. A file that is the one just read
    (a symbolic link to it, as recorders store a still table's repeats) gives the same frame
    again (the same array: do not write into frames) without decoding it twice. Images are decoded with
    ``cv2.IMREAD_COLOR``, so grey, 16-bit and RGBA files all come out (H, W, 3) uint8 BGR.
    """

    def __init__(self, folder_or_paths: str | Path | Iterable[str | Path], loop: bool = False,
                 decode=None) -> None:
        self._decode_file = decode
        if isinstance(folder_or_paths, (str, Path)):
            root = Path(folder_or_paths)
            if root.is_dir():
                paths = sorted(
                    (p for p in root.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES),
                    key=_natural_key,
                )
                if not paths:
                    raise ValueError(f"{root}: no JPEG or PNG frames in this folder")
            elif root.exists():
                paths = [root]
            else:
                raise FileNotFoundError(f"{root}: no such folder or image file to replay")
        else:
            paths = [Path(p) for p in folder_or_paths]
        self.paths: list[Path] = paths
        self.loop = loop
        self.index = 0  # the next file to read
        self.problems: list[tuple[Path, str]] = []
        self.current_path: Path | None = None
        self._last_target: Path | None = None  # the file last decoded (links resolved), and its frame
        self._last_frame: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.paths)

    @property
    def position(self) -> int:
        """The index of the frame last read (-1 before the first), as a journal records it."""
        return self.index - 1

    @property
    def exhausted(self) -> bool:
        """True when every file has been played (never with ``loop``)."""
        return not self.loop and self.index >= len(self.paths)

    def read(self) -> np.ndarray | None:
        """The next recorded frame, (H, W, 3) uint8 BGR; None for a corrupt file or at the end."""
        self._check_open()
        if not self.paths:
            return None
        if self.index >= len(self.paths):
            if not self.loop:
                self.current_path = None
                return None
            self.index = 0
        path = self.paths[self.index]
        self.index += 1
        self.current_path = path
        # A recorder stores a still table's repeats as links to one file: the same file is the same
        # frame, decoded once (a whole recorded game replays ~2× faster). Resolving the link costs a
        # stat; a path that cannot be resolved is decoded (and reported) as usual.
        try:
            target = path.resolve()
        except OSError:
            target = None
        if target is not None and target == self._last_target and self._last_frame is not None:
            return self._last_frame
        frame = self._decode(path)
        self._last_target, self._last_frame = target, frame
        return frame

    def _decode(self, path: Path) -> np.ndarray | None:
        import cv2

        if self._decode_file is not None:
            try:
                return self._decode_file(path)
            except OSError as exc:
                self.problems.append((path, str(exc)))
                return None

        try:
            # imdecode over bytes rather than imread: imread cannot tell "missing" from "corrupt"
            # and chokes on non-ASCII paths on some platforms
            data = np.frombuffer(path.read_bytes(), dtype=np.uint8)
        except OSError as exc:
            self.problems.append((path, f"cannot read: {exc.strerror or exc}"))
            return None
        try:
            frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        except cv2.error as exc:
            self.problems.append((path, f"corrupt: cv2.imdecode failed: {exc}"))
            return None
        if frame is None:
            self.problems.append((path, "not a decodable JPEG/PNG image (corrupt or empty)"))
            return None
        return frame

    def __iter__(self) -> Iterator[np.ndarray | None]:
        """Yield every remaining frame once (None for a corrupt one), ignoring ``loop``."""
        while self.index < len(self.paths):
            yield self.read()


class Picamera2Source(_Source):
    """The Raspberry Pi camera through picamera2 (libcamera).

    Args:
        size: main stream (w, h) px, default 2028×1520.
        lores_size: small stream (w, h) px, default 320×240 (keep it 4:3 and 64 px aligned).
        rotate180: the camera is mounted upside down (a libcamera Transform, free in the ISP).
        camera_num: which camera, for boards with two.

    The main stream is ``RGB888``, which picamera2 lays out as [B, G, R] (Picamera2 manual,
    Appendix A), so ``capture_array("main")`` is already OpenCV's BGR order: no conversion.
    The lores stream is ``YUV420`` because Pi 4 and earlier cannot give RGB on lores; its array
    is (h*3/2, w), planes Y then U then V (I420), converted with ``cv2.COLOR_YUV2BGR_I420``.
    Not ``cv2.COLOR_YUV420p2BGR``: despite its name OpenCV defines that as the YV12 code
    (V before U), which swaps the chroma planes and turns red into blue (tests/test_camera.py).
    If the array is not that shape (row padding on an unaligned size), ``read_lores`` falls back
    to downscaling main.

    Raises:
        CameraUnavailableError: picamera2 is not importable (off the Pi, or not installed: it comes
            from apt as ``python3-picamera2``), or libcamera finds no camera.
    """

    def __init__(
        self,
        size: tuple[int, int] = PI_MAIN_SIZE,
        lores_size: tuple[int, int] = LORES_SIZE,
        rotate180: bool = False,
        camera_num: int = 0,
    ) -> None:
        try:
            from picamera2 import Picamera2  # lazy: only exists on a Pi with python3-picamera2
        except ImportError as exc:
            raise CameraUnavailableError(
                f"the Pi camera needs picamera2, which is not importable ({exc}). On Raspberry Pi OS "
                "install it with 'sudo apt install python3-picamera2' (it is not on PyPI in a "
                "usable form) and make the venv with 'python3 -m venv --system-site-packages'. "
                "Off the Pi, use 'replay:DIR' or 'fake' instead of 'pi'."
            ) from exc
        self.size = (int(size[0]), int(size[1]))
        self.lores_size = (int(lores_size[0]), int(lores_size[1]))
        self.lores_width = self.lores_size[0]
        try:
            self._cam = Picamera2(camera_num)
        except (IndexError, RuntimeError) as exc:  # picamera2 raises IndexError when no camera is attached
            raise CameraUnavailableError(
                f"picamera2 found no camera #{camera_num} ({exc}); check the ribbon cable and "
                "'rpicam-hello --list-cameras'"
            ) from exc
        kwargs = {}
        if rotate180:
            from libcamera import Transform

            kwargs["transform"] = Transform(hflip=1, vflip=1)
        # a video configuration keeps frames streaming (capture_array returns the latest without
        # a mode switch); buffer_count 4 so a slow consumer does not stall the ISP
        config = self._cam.create_video_configuration(
            main={"size": self.size, "format": "RGB888"},
            lores={"size": self.lores_size, "format": "YUV420"},
            buffer_count=4,
            **kwargs,
        )
        self._cam.configure(config)
        self._cam.start()

    def read(self) -> np.ndarray:
        """Capture the main stream now: (H, W, 3) uint8 BGR (blocks until the next frame)."""
        self._check_open()
        frame = self._cam.capture_array("main")
        if frame.ndim == 3 and frame.shape[2] == 4:  # XRGB8888 if a platform ignores RGB888
            frame = frame[:, :, :3]
        return np.ascontiguousarray(frame[:, : self.size[0]])

    def read_lores(self) -> np.ndarray | None:
        """Capture one request now and return its lores stream: (h, w, 3) uint8 BGR, about
        320×240, or None if the camera gave no frame within :data:`CAPTURE_TIMEOUT_S`. The request is held (one of the four buffers) until :meth:`main_for_lores` or
        the next capture, so its main stream can still be had without a copy per frame
        (Picamera2 manual §6.2, ``capture_request``: a request must be released)."""
        import cv2

        self._check_open()
        self._release()
        w, h = self.lores_size
        self._request = self._capture()
        if self._request is None:
            return None
        yuv = self._request.make_array("lores")
        if yuv.ndim == 2 and yuv.shape == (h * 3 // 2, w):
            return cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420)
        if yuv.ndim == 3 and yuv.shape[2] in (3, 4):  # a Pi 5 may honour an RGB lores format
            return np.ascontiguousarray(yuv[:, :w, :3])
        return downscale_lores(self.main_for_lores(), w)

    def main_for_lores(self) -> np.ndarray | None:
        """The main stream of the request the last :meth:`read_lores` captured, (H, W, 3) uint8
        BGR (a copy; the request is released), or None if it was already taken."""
        request, self._request = getattr(self, "_request", None), None
        if request is None:
            return None
        try:
            frame = request.make_array("main")
        finally:
            request.release()
        if frame.ndim == 3 and frame.shape[2] == 4:
            frame = frame[:, :, :3]
        return np.ascontiguousarray(frame[:, : self.size[0]])

    def _capture(self):
        """The next completed request, or None if none came within :data:`CAPTURE_TIMEOUT_S` (a
        stalled camera is then a dropped frame, which the loop reports, not a hang). The request
        asked for is kept and waited for again next time, so no buffer is lost (Picamera2 manual
        §6.4: ``capture_request(wait=False)`` returns a job; ``wait(job, timeout)``)."""
        if getattr(self, "_job", None) is None:
            self._job = self._cam.capture_request(wait=False)
        try:
            request = self._cam.wait(self._job, timeout=CAPTURE_TIMEOUT_S)
        except TimeoutError:
            return None
        self._job = None
        return request

    def _release(self) -> None:
        request, self._request = getattr(self, "_request", None), None
        if request is not None:
            request.release()

    def close(self) -> None:
        if not self._closed:
            try:
                self._release()
                self._cam.stop()
            finally:
                self._cam.close()
        self._closed = True


class OpenCVSource(_Source):
    """A USB/V4L2 webcam through ``cv2.VideoCapture`` (for development off the Pi).

    Args:
        index: the device number (``/dev/videoN``).
        size: requested (w, h) px; the driver may pick another.

    Raises:
        CameraUnavailableError: the device cannot be opened.

    ``read()`` returns None when the driver drops a frame.
    """

    def __init__(self, index: int = 0, size: tuple[int, int] | None = None) -> None:
        import cv2

        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise CameraUnavailableError(f"cannot open video device {index} with OpenCV")
        if size:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def read(self) -> np.ndarray | None:
        self._check_open()
        ok, frame = self._cap.read()
        return frame if ok else None

    def close(self) -> None:
        if not self._closed:
            self._cap.release()
        self._closed = True


def _parse_size(text: str, spec: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)[xX](\d+)", text)
    if not m:
        raise ValueError(f"camera spec {spec!r}: size must look like 640x480, not {text!r}")
    return int(m.group(1)), int(m.group(2))


def _fake_frames(size: tuple[int, int]) -> Iterator[np.ndarray]:
    """An endless mid-grey table, so 'fake' works with no data at all."""
    w, h = size
    frame = np.full((h, w, 3), 96, np.uint8)
    while True:
        yield frame.copy()


def open_camera(spec: str, decode=None) -> FrameSource:
    """Open a frame source from a spec string.

    Specs:
        ``pi`` / ``pi:WxH`` / ``pi:WxH:rot180``: the Raspberry Pi camera (Picamera2Source).
        ``replay:DIR``, ``replay:FILE``, ``replay:A.png,B.png``: recorded frames (ReplaySource);
        ``replay-loop:DIR`` loops.
        ``usb`` / ``usb:N``: a webcam via OpenCV (OpenCVSource).
        ``fake`` / ``fake:WxH``: an endless plain grey table (FakeSource), default 640×480.

    ``decode``: for ``replay`` specs, the frame reader (see :class:`ReplaySource`).

    Raises:
        ValueError: an unknown or malformed spec (the message lists the valid forms).
        CameraUnavailableError, FileNotFoundError: as the chosen source raises.
    """
    kind, _, arg = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "pi":
        parts = [p for p in arg.split(":") if p] if arg else []
        rotate = "rot180" in parts
        sizes = [p for p in parts if p != "rot180"]
        size = _parse_size(sizes[0], spec) if sizes else PI_MAIN_SIZE
        return Picamera2Source(size=size, rotate180=rotate)
    if kind in ("replay", "replay-loop"):
        if not arg:
            raise ValueError(f"camera spec {spec!r}: say what to replay, e.g. 'replay:frames/'")
        target = arg.split(",") if "," in arg else arg
        return ReplaySource(target, loop=kind == "replay-loop", decode=decode)
    if kind == "usb":
        if arg and not arg.isdigit():
            raise ValueError(f"camera spec {spec!r}: usb takes a device number, e.g. 'usb:0'")
        return OpenCVSource(int(arg or 0))
    if kind == "fake":
        return FakeSource(_fake_frames(_parse_size(arg, spec) if arg else (640, 480)))
    raise ValueError(
        f"unknown camera spec {spec!r}; use 'pi', 'pi:WxH', 'replay:DIR', 'usb:N' or 'fake'"
    )
