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


@dataclass(frozen=True)
class DieObservation:
    """One die found in an image, by the top face it shows (issue #7).

    face: for a pip die (``kind == "d6"``) the pip count as a string ``"1"`` … ``"6"``; for a Sushi
        Roll die a face name from ``companion/data/sushi_roll_dice.toml`` (``"maki*2"``) or
        ``"unknown"`` when no enrolled face matches; ``None`` when a die is there but its top face
        cannot be read (glare, cut off by the image edge, cocked): reported, never guessed.
    confidence: 0..1, how sure the reader is of ``face``.
    quad: the top face's 4 corners in image px (x, y), clockwise.
    die: the Sushi Roll die type (``"maki"``) of ``face``, or None (pip dice, unknown faces).
    """

    face: str | None
    confidence: float
    quad: tuple[Point, Point, Point, Point]
    die: str | None = None

    @property
    def center(self) -> Point:
        """Centre of the top face in image px (mean of the corners)."""
        return (sum(p[0] for p in self.quad) / 4.0, sum(p[1] for p in self.quad) / 4.0)

    @property
    def value(self) -> int | None:
        """A pip die's value 1..6, or None (unreadable, or not a pip die)."""
        return int(self.face) if self.face is not None and self.face.isdigit() else None

    def _geometry(self) -> dict:
        cx, cy = self.center
        return {
            "center": [round(float(cx), 1), round(float(cy), 1)],
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
            "confidence": round(float(self.confidence), 3),
        }

    def to_json_d6(self) -> dict:
        """``{"value": 1..6 | null, "center", "quad", "confidence"}`` (issue #7 §1)."""
        return {"value": self.value, **self._geometry()}

    def to_json_icon(self) -> dict:
        """``{"face", "die", "center", "quad", "confidence"}`` (issue #7 §2)."""
        return {"face": self.face, "die": self.die, **self._geometry()}
