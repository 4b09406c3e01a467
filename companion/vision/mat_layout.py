"""The play mat's geometry: marker positions and one zone per seat, in mm.

Pure data (no cv2): the simulator draws it, the mat tracker detects it. The layouts live in
``calibration/mats/sushi-go-{N}p.toml``. Coordinates are mat millimetres, origin at the top-left
corner, x to the right, y down. Seats run clockwise seen from above, so "pass left"
(sushi-go.txt, "PLAYING A ROUND") is seat ``i`` → seat ``i + 1``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from companion.calibration import calibration_dir


class MatLayoutError(ValueError):
    """A mat layout file is missing or malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Marker:
    """One ArUco marker printed on the mat: its id, centre (mm) and side length (mm)."""

    id: int
    center_mm: tuple[float, float]
    size_mm: float

    def corners_mm(self) -> list[tuple[float, float]]:
        """The 4 corners in ArUco's order (top-left, top-right, bottom-right, bottom-left), mm."""
        cx, cy = self.center_mm
        h = self.size_mm / 2
        return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]


@dataclass(frozen=True)
class Zone:
    """The area in front of one seat where that player's tableau lies.

    ``rect_mm`` is ``(x, y, w, h)``; ``facing`` is the rotation in degrees that makes a card
    read upright for the seated player (0 for a seat at the bottom edge, 180 at the top).
    """

    seat: int
    name: str
    rect_mm: tuple[float, float, float, float]
    facing: int

    def contains(self, x_mm: float, y_mm: float) -> bool:
        """True if the point (mm) lies inside this zone (edges included)."""
        x, y, w, h = self.rect_mm
        return x <= x_mm <= x + w and y <= y_mm <= y + h


@dataclass(frozen=True)
class MatLayout:
    """A whole mat: size (mm), card size (mm), 4 corner markers, and the seat zones in seat order."""

    name: str
    players: int
    width_mm: float
    height_mm: float
    card_mm: tuple[float, float]
    aruco_dictionary: str
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]

    def zone_at(self, x_mm: float, y_mm: float) -> Zone | None:
        """The zone holding the point (mm), or None if it lies outside every zone."""
        for zone in self.zones:
            if zone.contains(x_mm, y_mm):
                return zone
        return None


def mat_path(players: int) -> Path:
    """The layout file for a ``players``-seat Sushi Go! mat."""
    return calibration_dir() / "mats" / f"sushi-go-{players}p.toml"


def load_mat_layout(players: int | None = None, path: Path | str | None = None) -> MatLayout:
    """Load a mat layout by player count (2–5) or from an explicit TOML ``path``.

    Raises:
        MatLayoutError: no layout for that player count, or a field is missing or wrong.
    """
    if path is None:
        if players is None or not 2 <= players <= 5:
            raise MatLayoutError(f"players must be 2 to 5 for a Sushi Go! mat, not {players!r}")
        path = mat_path(players)
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise MatLayoutError(f"{path}: mat layout file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise MatLayoutError(f"{path}: not valid TOML: {exc}") from None
    try:
        markers = tuple(
            Marker(int(m["id"]), (float(m["center_mm"][0]), float(m["center_mm"][1])), float(m["size_mm"]))
            for m in data["markers"]
        )
        zones = tuple(
            Zone(int(z["seat"]), str(z["name"]), tuple(float(v) for v in z["rect_mm"]), int(z["facing"]))
            for z in data["zones"]
        )
        layout = MatLayout(
            name=str(data["name"]),
            players=int(data["players"]),
            width_mm=float(data["width_mm"]),
            height_mm=float(data["height_mm"]),
            card_mm=(float(data["card_mm"][0]), float(data["card_mm"][1])),
            aruco_dictionary=str(data["aruco_dictionary"]),
            markers=markers,
            zones=zones,
        )
    except KeyError as exc:
        raise MatLayoutError(f"{path}: missing field {exc.args[0]!r}") from None
    except (TypeError, ValueError, IndexError) as exc:
        raise MatLayoutError(f"{path}: malformed field: {exc}") from None
    if len(markers) != 4:
        raise MatLayoutError(f"{path}: markers: a mat needs exactly 4 corner markers, found {len(markers)}")
    if [z.seat for z in zones] != list(range(layout.players)):
        raise MatLayoutError(f"{path}: zones: need seats 0..{layout.players - 1} in order, one zone each")
    return layout
