"""One BLAS thread while a frame is read.

Reading a frame multiplies small matrices (a few hundred descriptors by a few hundred templates).
Split over threads they gain little, and on a Pi or a small machine that is busy with anything else
(the camera, the display, another process) OpenBLAS's waiting threads made a turn several times
slower (measured: 90 ms → 540 ms on a loaded 2-core machine). threadpoolctl (the scikit-learn
project's library; https://github.com/joblib/threadpoolctl) sets the BLAS thread count for the
duration of a ``with`` block and restores it afterwards.
"""

from __future__ import annotations

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
