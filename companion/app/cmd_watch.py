"""``companion watch [--fps F] [--json] SOURCE``: report when the table moves and settles (issue #7 §3).

SOURCE is a video file OpenCV can open, a folder of frames (JPEG/PNG, read in natural name order:
``f2`` before ``f10``), or a live camera spec (``pi``, ``pi:WxH``, ``usb:N``; see
:func:`companion.devices.camera.open_camera`). Every frame goes through
:class:`companion.vision.motion.SettleDetector` on the small stream; each event is printed as it
is decided, one line, flushed: with ``--json`` ``{"event": "moving"|"settled", "frame": i, "t": s}``,
else ``frame 42  t 1.400 s  settled``.

Time: ``t = frame / fps`` for a video or folder (``--fps``, else the video's own rate, else 30);
seconds since the start on the monotonic clock for a live camera.

A folder frame that cannot be read is reported on stderr, naming the file, and skipped (it is
neither motion nor stillness; frame numbers still count it). Exit status: 2 if any frame was bad or
the source cannot be opened, else 0 (also after Ctrl-C, which stops a live camera quietly).

cv2 and the detector load only inside :func:`run`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from companion.app.cli_util import err as _err, sigterm_as_interrupt

#: The first word of the camera specs ``open_camera`` understands.
CAMERA_KINDS = ("pi", "usb", "fake")
DEFAULT_FPS = 30.0
#: Seconds without a frame after which a live camera counts as gone (unplugged, stalled).
CAMERA_SILENCE_S = 2.0


class WatchError(Exception):
    """The source cannot be used; the message names it and says why."""



#: The largest side at which a folder's frame is decoded, px: the detector works at about 320 px
#: wide, and a JPEG is decoded reduced (companion.vision.imageio.read_working), so a photo-sized
#: frame costs no more memory than a small one, and nothing over the pixel budget is decoded.
FOLDER_FRAME_SIDE = 640


def _folder_frames(folder: Path, fps: float, bad: list[str]) -> Iterator[tuple[int, float, object, str]]:
    """(index, t, frame, name) for each readable frame of a folder, in natural name order;
    unreadable ones (or ones over the pixel budget) reported and skipped."""
    from companion.devices.camera import ReplaySource
    from companion.vision.imageio import ImageReadError, read_working

    try:
        paths = ReplaySource(folder).paths  # the folder's frames in natural name order
    except (ValueError, FileNotFoundError) as exc:
        raise WatchError(f"watch: {exc}") from None
    for i, path in enumerate(paths):
        try:
            frame = read_working(path, FOLDER_FRAME_SIDE).image
        except ImageReadError as exc:
            bad.append(str(path))
            _err(f"watch: {path}: {exc.reason}; frame {i} skipped")
            continue
        yield i, i / fps, frame, str(path)


def _video_frames(path: Path, fps: float | None) -> Iterator[tuple[int, float, object, str]]:
    """(index, t, frame) for each frame of a video file, read with cv2.VideoCapture."""
    import cv2

    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise WatchError(
            f"watch: {path}: OpenCV cannot open this file as a video (not a video, or no decoder "
            "for its codec); a folder of frames or a camera spec (pi, usb:N) also works"
        )
    if fps is None:
        rate = cap.get(cv2.CAP_PROP_FPS)
        fps = rate if rate and 0 < rate < 1000 else DEFAULT_FPS
    try:
        i = 0
        while True:
            ok, frame = cap.read()
            if not ok:
                if i == 0:
                    raise WatchError(f"watch: {path}: OpenCV opened the video but could not decode a frame of it")
                return
            yield i, i / fps, frame, f"frame {i}"
            i += 1
    finally:
        cap.release()


def _camera_frames(spec: str) -> Iterator[tuple[int, float, object, str]]:
    """(index, t, frame) from a live camera's small stream; t on the monotonic clock from 0."""
    import time

    from companion.devices.camera import CameraError, open_camera

    try:
        cam = open_camera(spec)
    except (CameraError, ValueError, OSError) as exc:
        raise WatchError(f"watch: camera {spec!r}: {exc}") from None
    t0 = time.monotonic()
    with cam:
        i = 0
        last = time.monotonic()
        while True:
            frame = cam.read_lores()
            if frame is None:  # a dropped frame: nothing to judge, the next one will come
                if getattr(cam, "exhausted", False):
                    return
                if time.monotonic() - last > CAMERA_SILENCE_S:
                    raise WatchError(f"watch: camera {spec!r} stopped giving frames ({CAMERA_SILENCE_S:.0f} s without one)")
                time.sleep(0.005)
                continue
            last = time.monotonic()
            yield i, last - t0, frame, f"frame {i}"
            i += 1


def _frames(source: str, fps: float | None, bad: list[str]) -> Iterator[tuple[int, float, object, str]]:
    path = Path(source)
    if path.is_dir():
        return _folder_frames(path, fps or DEFAULT_FPS, bad)
    if path.is_file():
        return _video_frames(path, fps)
    kind = source.partition(":")[0].strip().lower()
    if kind in CAMERA_KINDS:
        return _camera_frames(source)
    raise WatchError(
        f"watch: {source}: no such file or folder, and not a camera spec (pi, pi:WxH, usb:N)"
    )


def _line(event, as_json: bool) -> str:
    if as_json:
        return json.dumps(event.to_json())
    return f"frame {event.frame:>6}  t {event.t:8.3f} s  {event.kind}"


def run(args: argparse.Namespace) -> int:
    """Watch ``args.source`` and print events; return the exit status (0, or 2 on bad input)."""
    if args.fps is not None and not (0 < args.fps < float("inf")):
        _err(f"watch: --fps must be a positive number of frames per second, not {args.fps}")
        return 2
    import cv2

    from companion.vision.motion import SettleDetector

    # OpenCV's own warnings (V4L2, FFmpeg probing) would repeat our named errors in its words
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)

    bad: list[str] = []
    detector = SettleDetector()
    frames = None
    restore = sigterm_as_interrupt()
    try:
        frames = _frames(args.source, args.fps, bad)
        for index, t, frame, name in frames:
            try:
                events = detector.update(frame, t, index)
            except ValueError as exc:  # a frame of another size in a folder: cannot be compared
                bad.append(name)
                _err(f"watch: {name}: {exc}; skipped")
                continue
            for event in events:
                print(_line(event, args.json), flush=True)
    except WatchError as exc:
        _err(str(exc))
        return 2
    except KeyboardInterrupt:
        pass  # Ctrl-C (or SIGTERM, from systemd) is how a live watch ends
    finally:
        if frames is not None and hasattr(frames, "close"):
            frames.close()  # runs the source's own `with`: the camera is released
        restore()
    if not args.json:
        print(f"{detector.frames_seen} frames watched" + (f", {len(bad)} skipped" if bad else ""), flush=True)
    return 2 if bad else 0
