"""What vision reports about a frame: plain values that the app turns into rules actions.

No cv2 here, so the app and tests can build observations without loading OpenCV.
"""

from __future__ import annotations

from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class CardObservation:
    """One card found in an image.

    label: a deck label (``"tempura"`` … ``"back"``) or ``"unknown"`` when nothing enrolled matches.
    confidence: 0..1, how sure the classifier is of ``label``.
    quad: the card's 4 corners in image pixels (x, y), clockwise from the top-left of the card as
        found; for an ``"unknown"`` card the order is arbitrary.
    """

    label: str
    confidence: float
    quad: tuple[Point, Point, Point, Point]

    @property
    def center(self) -> Point:
        """Centre of the quad in image px (mean of the corners)."""
        return (sum(p[0] for p in self.quad) / 4.0, sum(p[1] for p in self.quad) / 4.0)

    def to_json(self) -> dict:
        """``{"label", "confidence", "quad"}`` as in issue #2 §4 (confidence rounded to 3 places)."""
        return {
            "label": self.label,
            "confidence": round(float(self.confidence), 3),
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
        }
