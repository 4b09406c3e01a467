"""What the drawn card styles (``faces_illustrated``, ``faces_noir``, ``faces_watercolour``,
``faces_pattern``) share: the design canvas, the labels they draw, and how a style's face is handed out.

The flat style (``companion.sim.faces``) draws on the same 440 × 630 canvas.
"""

from __future__ import annotations

import zlib
from typing import Callable

import numpy as np

DW, DH = 440, 630  # design canvas (px): 44 × 63 mm at 10 px/mm, the same for every style
#: The labels a style draws: the 12 card types and "back".
LABELS = (
    "tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
    "squid_nigiri", "pudding", "wasabi", "chopsticks", "back",
)


def finished(label: str, front: Callable[[str], np.ndarray], back: Callable[[], np.ndarray]) -> np.ndarray:
    """A style's face (or back) of ``label`` at the design size, read-only.

    Args:
        label: one of :data:`LABELS`.
        front: draws a card type's face, ``label`` → (DH, DW, 3) uint8 BGR.
        back: draws the back, → (DH, DW, 3) uint8 BGR.

    Returns:
        (630, 440, 3) uint8 BGR, read-only (a style caches it: copy or resize before drawing on it).

    Raises:
        ValueError: unknown label, naming the valid ones.
    """
    if label not in LABELS:
        raise ValueError(f"unknown card label {label!r}; valid labels are: {', '.join(LABELS)}")
    img = back() if label == "back" else front(label)
    img.setflags(write=False)
    return img


def family(label: str) -> str:
    """The shared design of a label: "maki" for maki_1/2/3, "nigiri" for the three nigiri."""
    if label.startswith("maki_"):
        return "maki"
    if label.endswith("_nigiri"):
        return "nigiri"
    return label


def point_symmetric(img: np.ndarray) -> np.ndarray:
    """``img`` averaged with itself turned 180°: (H, W, 3) uint8 BGR in and out. A card back must
    look the same either way up, so a turned back is never taken for another card."""
    return ((img.astype(np.uint16) + img[::-1, ::-1]) // 2).astype(np.uint8)


def seeded(key: str) -> np.random.Generator:
    """A generator seeded from ``key`` (crc32), so the same label always gives the same pixels."""
    return np.random.default_rng(zlib.crc32(key.encode("utf-8")))
