"""One BLAS thread (and one OpenCV thread) while a frame is read.

Reading a frame multiplies small matrices (a few hundred descriptors by a few hundred templates).
Split over threads they gain little, and on a Pi or a small machine that is busy with anything else
(the camera, the display, another process) OpenBLAS's waiting threads made a turn several times
slower (measured: 90 ms → 540 ms on a loaded 2-core machine). threadpoolctl (the scikit-learn
project's library; https://github.com/joblib/threadpoolctl) sets the BLAS thread count for the
duration of a ``with`` block and restores it afterwards.
"""

from __future__ import annotations

import contextlib

_CONTROLLER: list = []  # one threadpoolctl.ThreadpoolController, made on first use (after numpy loads)


def one_blas_thread():
    """A context manager under which numpy's BLAS runs on one thread (restored on exit).

    Returns:
        threadpoolctl's limiter (usable as ``with one_blas_thread(): ...``).
    """
    from threadpoolctl import ThreadpoolController

    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


@contextlib.contextmanager
def one_opencv_thread():
    """OpenCV on one thread while a photo is read; its thread count restored after.

    Reading is hundreds of OpenCV calls on small arrays (icon dice, per blob: a crop's watershed,
    contours, masks; per die: 48 px warps, 24 px blurs, template matches; cards: a window's warp)
    and a few on the frame, and OpenCV's pool splits each call over its threads: on small arrays
    the hand-over costs more than the work (measured on a busy 2-core machine, the same frames read in turn each way:
    a patch's warp 31 µs on one thread, 40 µs on two; the frame 36.5 ms against 39.8 ms, and
    47.6 against 50.4 for the second art). ``cv2.setNumThreads`` is process-wide (OpenCV docs,
    ``cv::setNumThreads``): the readers that use this (icon dice, ``read cards``) set it only here,
    and it restores the count on leaving. Two readers on two threads at once could interleave the
    save and the restore; the play loop reads on one thread.
    """
    import cv2

    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(before)
