"""The camera side of a simulated table: frames made by a generator, handed out as a camera hands
out its frames (:class:`companion.devices.camera.FrameSource`: ``read``, ``read_lores``,
``main_for_lores``), with ``skip_to`` for a resumed game. The Sushi Go! and Sushi Roll streams
(:mod:`companion.sim.stream`, :mod:`companion.sim.roll_stream`) differ only in the film they make.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from companion.devices.camera import downscale_lores


class Film:
    """A FrameSource over the frames ``_generate()`` yields, (H, W, 3) uint8 BGR.

    Subclasses call :meth:`_start` at the end of ``__init__`` and make their frames in
    ``_generate``; while ``_skip_until`` lies ahead (``skip_to``), they may yield a blank instead of
    rendering. ``position`` is the index of the frame last read (-1 before the first), as a journal
    records it; ``exhausted`` is True once the frames ran out or the film was closed.
    """

    def _start(self) -> None:
        self.position = -1
        self.exhausted = False
        self._last: np.ndarray | None = None
        self._closed = False
        self._skip_until = -1
        self._frames: Iterator[np.ndarray] = self._generate()

    def _generate(self) -> Iterator[np.ndarray]:  # pragma: no cover - every film makes its own
        raise NotImplementedError

    def read(self) -> np.ndarray | None:
        """The next main frame, or None once the film is over or closed."""
        if self._closed:
            return None
        frame = next(self._frames, None)
        if frame is None:
            self.exhausted = True
        else:
            self.position += 1
            self._last = frame
        return frame

    @property
    def last_frame(self) -> np.ndarray | None:
        """The main frame last read, (H, W, 3) uint8 BGR, or None before the first."""
        return self._last

    def read_lores(self) -> np.ndarray | None:
        """The next frame's small stream (≈320 px wide BGR, ``downscale_lores``), as a camera's
        lores stream: like ``read``, each call is the next frame; None at the end."""
        frame = self.read()
        return None if frame is None else downscale_lores(frame)

    def main_for_lores(self) -> np.ndarray | None:
        """The main frame the last ``read_lores`` was shrunk from (the camera contract's
        :meth:`~companion.devices.camera.FrameSource.main_for_lores`)."""
        return self._last

    def skip_to(self, frame: int) -> None:
        """Play on without rendering until frame index ``frame`` has been read (a resumed game
        continues where its journal was; the bots stay the same)."""
        self._skip_until = frame
        while self.position < frame and self.read() is not None:
            pass
        self._skip_until = -1

    def close(self) -> None:
        """Stop the film: ``read`` returns None from now on. Safe to call twice."""
        self._closed = True
        self.exhausted = True

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
