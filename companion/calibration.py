"""Where the calibration data (mat layouts, camera intrinsics, enrolled decks) lives.

The files are under ``calibration/`` at the top of the repository; ``COMPANION_CALIBRATION``
overrides the folder (e.g. ``/etc/companion/calibration`` on a Pi).
"""

from __future__ import annotations

import os
from pathlib import Path


def calibration_dir() -> Path:
    """Return the calibration folder (``$COMPANION_CALIBRATION`` or the repository's ``calibration/``)."""
    env = os.environ.get("COMPANION_CALIBRATION")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "calibration"
