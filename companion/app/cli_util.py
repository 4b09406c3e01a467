"""What the command modules share: messages on stderr, plain tables, images read at a working size.

No heavy imports at module level: ``companion score`` imports nothing from here that loads cv2.
"""

from __future__ import annotations

import sys


def err(msg: str) -> None:
    """``companion: error: MSG`` on stderr."""
    print(f"companion: error: {msg}", file=sys.stderr)


def note(msg: str) -> None:
    """``companion: note: MSG`` on stderr (something the user should know; not a failure)."""
    print(f"companion: note: {msg}", file=sys.stderr)


def sigterm_as_interrupt():
    """Make SIGTERM end a command as Ctrl-C does (devices are closed on the way out by their
    ``with`` blocks; systemd stops a unit with SIGTERM); return a function that puts the previous
    handler back. Only the main thread may set handlers: elsewhere this does nothing."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    return lambda: signal.signal(signal.SIGTERM, previous)


def table(rows: list[list[str]], header: list[str]) -> str:
    """Left-aligned columns under ``header``, two spaces apart, trailing blanks trimmed."""
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt.format(*r).rstrip() for r in [header] + rows)


def read_at_working_size(path: str, max_side: int):
    """The image at ``path`` at a reader's working size (:func:`companion.vision.imageio.read_working`:
    a JPEG is decoded reduced, nothing over the pixel budget is decoded at all), with a note on
    stderr when the reader sees fewer pixels than the file holds.

    Raises:
        companion.vision.imageio.ImageReadError: the file is missing, unreadable, not an image, or
            over the pixel budget (``ImageTooLargeError``).
    """
    from companion.vision.imageio import read_working

    work = read_working(path, max_side)
    if work.shrunk:
        note(work.note(path))
    return work
